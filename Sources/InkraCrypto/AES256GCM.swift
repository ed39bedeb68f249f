import CNIOBoringSSL

/// AES-256-GCM with a random 96-bit nonce and a 128-bit tag, in swift-crypto's `combined` form:
/// the nonce, the ciphertext, then the tag, so a box either sealed opens with the other.
package enum AES256GCM {
    /// The length of a key, in bytes.
    package static let keyByteCount = 32
    /// The length of the nonce that starts a box, in bytes.
    package static let nonceByteCount = 12
    /// The length of the tag that ends a box, in bytes.
    package static let tagByteCount = 16

    /// Why a seal failed.
    package enum Failure: Error, Sendable, Equatable {
        /// The key is not ``keyByteCount`` bytes long.
        case wrongKeySize
    }

    /// `plaintext` sealed under `key` with a fresh random nonce: the nonce, the ciphertext and the
    /// tag, ``nonceByteCount`` + `plaintext.count` + ``tagByteCount`` bytes.
    /// - Throws: ``Failure/wrongKeySize`` when `key` is not 32 bytes.
    package static func seal(_ plaintext: some Collection<UInt8>, key: [UInt8]) throws(Failure) -> [UInt8] {
        guard let context = context(key) else { throw .wrongKeySize }
        defer { EVP_AEAD_CTX_free(context) }
        var nonce = [UInt8](repeating: 0, count: nonceByteCount)
        BoringSSL.require(nonce.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, $0.count) }, "RAND_bytes")
        let plain = Array(plaintext)
        var sealed = [UInt8](repeating: 0, count: plain.count + tagByteCount)
        var written = 0
        let result = BoringSSL.withBytes(plain) { input, inputCount in
            sealed.withUnsafeMutableBufferPointer { output in
                EVP_AEAD_CTX_seal(
                    context, output.baseAddress, &written, output.count, nonce, nonce.count, input, inputCount, nil, 0)
            }
        }
        // Sealing with a valid key and room for the tag fails only when memory runs out.
        BoringSSL.require(result, "EVP_AEAD_CTX_seal")
        precondition(written == sealed.count, "EVP_AEAD_CTX_seal wrote \(written) bytes of \(sealed.count)")
        return nonce + sealed
    }

    /// The plaintext of a box ``seal(_:key:)`` (or swift-crypto's `AES.GCM`) made under `key`, or
    /// `nil` when `combined` is not such a box: too short, altered, or sealed under another key.
    package static func open(_ combined: some Collection<UInt8>, key: [UInt8]) -> [UInt8]? {
        let box = Array(combined)
        guard box.count >= nonceByteCount + tagByteCount, let context = context(key) else { return nil }
        defer { EVP_AEAD_CTX_free(context) }
        let nonce = Array(box[..<nonceByteCount])
        let sealed = Array(box[nonceByteCount...])
        var plain = [UInt8](repeating: 0, count: sealed.count)
        var written = 0
        let result = plain.withUnsafeMutableBufferPointer { output in
            // The output has a byte at least (the tag is 16), so its base address is never nil.
            EVP_AEAD_CTX_open(
                context, output.baseAddress, &written, output.count, nonce, nonce.count, sealed, sealed.count, nil, 0)
        }
        // The tag is checked in constant time (CRYPTO_memcmp) inside BoringSSL.
        guard result == 1 else {
            BoringSSL.clearErrors()
            return nil
        }
        return Array(plain[..<written])
    }

    /// A context for `key`, or `nil` when the key is not 32 bytes (freed with `EVP_AEAD_CTX_free`).
    private static func context(_ key: [UInt8]) -> UnsafeMutablePointer<EVP_AEAD_CTX>? {
        guard key.count == keyByteCount else { return nil }
        guard let context = EVP_AEAD_CTX_new(EVP_aead_aes_256_gcm(), key, key.count, tagByteCount) else {
            BoringSSL.clearErrors()
            return nil
        }
        return context
    }
}
