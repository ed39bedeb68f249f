import CNIOBoringSSL

/// An RSA private key that makes RSASSA-PKCS1-v1_5 signatures: only for the development tokens
/// of tests and the local emulator (`TokenSigner`), never for production use.
package struct RSAPrivateKey: Sendable {
    /// Why a key could not be read or made, or a signature not made.
    package enum Failure: Error, Sendable, Equatable {
        /// The text is not a PEM RSA private key (PKCS #1 or PKCS #8, unencrypted).
        case invalidKey
        /// The modulus has fewer than ``RSAPublicKey/minimumBitCount`` bits.
        case tooSmall(bits: Int)
        /// The size asked of a new key is not 2048, 3072 or 4096 bits.
        case unsupportedSize(bits: Int)
        /// BoringSSL did not make the key or the signature.
        case failed
    }

    private let key: OwnedRSA

    private init(_ key: OwnedRSA) { self.key = key }

    /// The modulus's length in bits.
    package var bitCount: Int { Int(RSA_bits(key.pointer)) }

    /// A key read from PEM: PKCS #1 (`RSA PRIVATE KEY`) or PKCS #8 (`PRIVATE KEY`), unencrypted.
    /// - Throws: ``Failure`` when the text holds no such RSA key, or one under 2048 bits.
    package init(pem: String) throws(Failure) {
        // The BIO reads the text in place, so all of it happens while the text's buffer is lent.
        let rsa: OpaquePointer? = BoringSSL.withBytes(Array(pem.utf8)) { text, count in
            guard let bio = BIO_new_mem_buf(text, count) else { return nil }
            defer { BIO_free(bio) }
            guard let pkey = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { return nil }
            defer { EVP_PKEY_free(pkey) }
            return EVP_PKEY_get1_RSA(pkey)
        }
        guard let rsa, RSA_get0_d(rsa) != nil else {
            if let rsa { RSA_free(rsa) }
            BoringSSL.clearErrors()
            throw .invalidKey
        }
        key = OwnedRSA(rsa)
        guard bitCount >= RSAPublicKey.minimumBitCount else { throw .tooSmall(bits: bitCount) }
    }

    /// A fresh key of `bits` bits (2048, 3072 or 4096) with the public exponent 65537.
    /// - Throws: ``Failure/unsupportedSize(bits:)`` for another size; ``Failure/failed`` when
    ///   BoringSSL makes no key.
    package static func generate(bits: Int) throws(Failure) -> RSAPrivateKey {
        guard [2048, 3072, 4096].contains(bits) else { throw .unsupportedSize(bits: bits) }
        guard let exponent = BN_new() else { throw .failed }
        defer { BN_free(exponent) }
        guard let rsa = RSA_new() else { throw .failed }
        let key = OwnedRSA(rsa)
        guard BN_set_word(exponent, 65537) == 1, RSA_generate_key_ex(rsa, CInt(bits), exponent, nil) == 1 else {
            BoringSSL.clearErrors()
            throw .failed
        }
        return RSAPrivateKey(key)
    }

    /// The modulus (a JWK's `n`), big-endian without leading zeros.
    package var modulus: [UInt8] { Self.bytes(of: RSA_get0_n(key.pointer)) }

    /// The public exponent (a JWK's `e`), big-endian without leading zeros.
    package var publicExponent: [UInt8] { Self.bytes(of: RSA_get0_e(key.pointer)) }

    /// The public half, to check this key's signatures.
    /// - Throws: ``RSAPublicKey/Failure`` as ``RSAPublicKey/init(modulus:exponent:)`` does.
    package func publicKey() throws(RSAPublicKey.Failure) -> RSAPublicKey {
        try RSAPublicKey(modulus: modulus, exponent: publicExponent)
    }

    /// This key's RSASSA-PKCS1-v1_5 signature of `message` hashed with `hash`, as long as the
    /// modulus.
    /// - Throws: ``Failure/failed`` when BoringSSL makes no signature.
    package func signature(for message: some Collection<UInt8>, hash: SHA2) throws(Failure) -> [UInt8] {
        let digest = hash.hash(message)
        var signature = [UInt8](repeating: 0, count: Int(RSA_size(key.pointer)))
        var written: CUnsignedInt = 0
        let result = signature.withUnsafeMutableBufferPointer { output in
            RSA_sign(hash.nid, digest, digest.count, output.baseAddress, &written, key.pointer)
        }
        guard result == 1 else {
            BoringSSL.clearErrors()
            throw .failed
        }
        return Array(signature[..<Int(written)])
    }

    private static func bytes(of number: UnsafePointer<BIGNUM>?) -> [UInt8] {
        guard let number else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(BN_num_bytes(number)))
        let written = bytes.withUnsafeMutableBufferPointer { BN_bn2bin(number, $0.baseAddress) }
        return Array(bytes[..<written])
    }
}
