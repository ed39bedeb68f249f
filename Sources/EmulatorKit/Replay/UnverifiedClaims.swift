import Foundation
import InkraJSON

/// The claims a JWT's payload holds, read without verifying the token: enough to tell whose token
/// it is (to keep one user's events in order) or which pool issued it (to pick the pool's
/// authorizer), never to trust it — the authorizer still verifies every token.
enum UnverifiedClaims {
    /// The largest payload read.
    static let maximumPayload = 8 * 1024

    /// The payload of `header.payload.signature`, with or without `Bearer `, or `nil` when the
    /// token is not three base64url parts around a JSON payload.
    static func of(_ token: String) -> JSONValue? {
        var bytes = trimmed(Array(token.utf8)[...])
        if bytes.count > 7, bytes.prefix(7).map(lowercased) == Array("bearer ".utf8) {
            bytes = trimmed(bytes.dropFirst(7))
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].count <= maximumPayload else { return nil }
        // base64url → base64: `+` and `/` for `-` and `_`, and the padding base64url leaves out.
        var base64 = parts[1].map { byte in
            switch byte {
            case UInt8(ascii: "-"): UInt8(ascii: "+")
            case UInt8(ascii: "_"): UInt8(ascii: "/")
            default: byte
            }
        }
        base64 += Array(repeating: UInt8(ascii: "="), count: (4 - base64.count % 4) % 4)
        guard let payload = Data(base64Encoded: Data(base64)) else { return nil }
        return try? JSONParser.parse(payload)
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) })
        else { return [] }
        return bytes[first...last]
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
