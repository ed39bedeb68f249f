// The BoringSSL that swift-nio-ssl builds for TLS, so that `bootstrap` links one BoringSSL and not
// also swift-crypto's. `CNIOBoringSSL` is no product of swift-nio-ssl: it is visible here because it
// is a dependency of the `NIOSSL` product this target depends on. Checked with swift-nio-ssl 2.37.6,
// whose headers rename BoringSSL's symbols with `#pragma redefine_extname` (Swift sees `SHA256`, the
// linker `CNIOBoringSSL_SHA256`); a release that changes that, or drops a function used here, fails
// this module's build rather than its behaviour.
import CNIOBoringSSL

/// The BoringSSL calls of this module: buffers, errors and the one-shot functions.
enum BoringSSL {
    /// Calls `body` with a pointer to `bytes` and their count; the pointer is never `nil`, even for
    /// no bytes (BoringSSL reads nothing through it then), as some functions read a `NULL` key
    /// as "no key given".
    static func withBytes<Result>(
        _ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) throws -> Result
    ) rethrows -> Result {
        if bytes.isEmpty {
            let none: UInt8 = 0
            return try withUnsafePointer(to: none) { try body($0, 0) }
        }
        return try bytes.withUnsafeBufferPointer { try body($0.baseAddress!, $0.count) }
    }

    /// Forgets the errors a failed call left on this thread's BoringSSL error queue, which NIOSSL
    /// shares: a refused key or signature must not be read later as a TLS error.
    static func clearErrors() {
        ERR_clear_error()
    }

    /// Whether a call that can fail only when memory runs out succeeded; stops the process when it
    /// did not, as nothing sensible can go on without memory.
    static func require(_ result: CInt, _ call: StaticString) {
        guard result == 1 else { fatalError("BoringSSL's \(call) failed: out of memory") }
    }

    /// A big-endian unsigned integer as a `BIGNUM` the caller frees with `BN_free`, or `nil`.
    static func bignum(_ bytes: [UInt8]) -> UnsafeMutablePointer<BIGNUM>? {
        withBytes(bytes) { BN_bin2bn($0, $1, nil) }
    }
}
