import CNIOBoringSSL

/// A hash function of the SHA-2 family (FIPS 180-4).
package enum SHA2: Sendable, CaseIterable {
    /// SHA-256: 32 bytes.
    case sha256
    /// SHA-384: 48 bytes.
    case sha384
    /// SHA-512: 64 bytes.
    case sha512

    /// The length of a digest, in bytes.
    package var byteCount: Int {
        switch self {
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// BoringSSL's number for the function (the `NID_` of PKCS #1's DigestInfo).
    var nid: CInt {
        switch self {
        case .sha256: NID_sha256
        case .sha384: NID_sha384
        case .sha512: NID_sha512
        }
    }

    /// The digest of `data`.
    package func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        BoringSSL.withBytes(Array(data)) { input, count in
            digest.withUnsafeMutableBufferPointer { output in
                let written: UnsafeMutablePointer<UInt8>? =
                    switch self {
                    case .sha256: SHA256(input, count, output.baseAddress)
                    case .sha384: SHA384(input, count, output.baseAddress)
                    case .sha512: SHA512(input, count, output.baseAddress)
                    }
                precondition(written != nil, "BoringSSL's SHA-2 returned no digest")
            }
        }
        return digest
    }
}

/// HMAC-SHA256 (RFC 2104), such as SigV4 and the server secret's pseudonyms use.
package enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key` (a key of any length).
    package static func authenticationCode(
        for message: some Collection<UInt8>, key: some Collection<UInt8>
    ) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: 32)
        var written: CUnsignedInt = 0
        BoringSSL.withBytes(Array(key)) { key, keyCount in
            BoringSSL.withBytes(Array(message)) { message, messageCount in
                code.withUnsafeMutableBufferPointer { output in
                    let result = HMAC(EVP_sha256(), key, keyCount, message, messageCount, output.baseAddress, &written)
                    precondition(result != nil && written == 32, "BoringSSL's HMAC failed: out of memory")
                }
            }
        }
        return code
    }
}

/// HKDF with SHA-256 (RFC 5869): extract, then expand.
package enum HKDFSHA256 {
    /// The most bytes HKDF-SHA256 can derive (255 blocks of 32 bytes).
    package static let maximumOutputByteCount = 255 * 32

    /// `outputByteCount` bytes derived from `inputKeyMaterial`, `salt` and `info`.
    /// - Precondition: `outputByteCount` is from 1 to ``maximumOutputByteCount``: a caller's
    ///   constant, never an input.
    package static func deriveKey(
        inputKeyMaterial: some Collection<UInt8>,
        salt: some Collection<UInt8>,
        info: some Collection<UInt8>,
        outputByteCount: Int
    ) -> [UInt8] {
        precondition((1...maximumOutputByteCount).contains(outputByteCount), "HKDF-SHA256 derives 1 to 8160 bytes")
        var key = [UInt8](repeating: 0, count: outputByteCount)
        BoringSSL.withBytes(Array(inputKeyMaterial)) { secret, secretCount in
            BoringSSL.withBytes(Array(salt)) { salt, saltCount in
                BoringSSL.withBytes(Array(info)) { info, infoCount in
                    key.withUnsafeMutableBufferPointer { output in
                        BoringSSL.require(
                            HKDF(
                                output.baseAddress, output.count, EVP_sha256(), secret, secretCount, salt, saltCount,
                                info, infoCount),
                            "HKDF")
                    }
                }
            }
        }
        return key
    }
}
