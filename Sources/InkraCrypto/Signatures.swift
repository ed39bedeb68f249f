import CNIOBoringSSL

/// An RSA public key that checks RSASSA-PKCS1-v1_5 signatures (RFC 8017 §8.2), as JWS's RS256,
/// RS384 and RS512 use.
package struct RSAPublicKey: Sendable {
    /// Why a key was refused.
    package enum Failure: Error, Sendable, Equatable {
        /// The modulus and exponent do not make an RSA public key.
        case invalidKey
        /// The modulus has fewer than ``minimumBitCount`` bits.
        case tooSmall(bits: Int)
    }

    /// The fewest bits a modulus may have.
    package static let minimumBitCount = 2048

    private let key: OwnedRSA

    /// The modulus's length in bits.
    package var bitCount: Int { Int(RSA_bits(key.pointer)) }

    /// A key from its modulus and public exponent, both big-endian unsigned integers (a JWK's `n`
    /// and `e`, decoded).
    /// - Throws: ``Failure`` when they make no key (BoringSSL's `RSA_new_public_key` checks them: an
    ///   odd modulus of at most 16384 bits, an odd exponent from 3 to 2³³), or one under 2048 bits.
    package init(modulus: some Collection<UInt8>, exponent: some Collection<UInt8>) throws(Failure) {
        guard let n = BoringSSL.bignum(Array(modulus)) else { throw .invalidKey }
        defer { BN_free(n) }
        guard let e = BoringSSL.bignum(Array(exponent)) else { throw .invalidKey }
        defer { BN_free(e) }
        guard let rsa = RSA_new_public_key(n, e) else {
            BoringSSL.clearErrors()
            throw .invalidKey
        }
        key = OwnedRSA(rsa)
        guard bitCount >= Self.minimumBitCount else { throw .tooSmall(bits: bitCount) }
    }

    /// Whether `signature` is this key's RSASSA-PKCS1-v1_5 signature of `message` hashed with
    /// `hash`. A signature that is not exactly as many bytes as the modulus is not valid (a
    /// modulus of 2,049 bits signs in 257 bytes).
    package func isValidSignature(
        _ signature: some Collection<UInt8>, for message: some Collection<UInt8>, hash: SHA2
    ) -> Bool {
        let signature = Array(signature)
        guard signature.count == Int(RSA_size(key.pointer)) else { return false }
        let digest = hash.hash(message)
        guard RSA_verify(hash.nid, digest, digest.count, signature, signature.count, key.pointer) == 1 else {
            BoringSSL.clearErrors()
            return false
        }
        return true
    }
}

/// An ECDSA public key on P-256 that checks signatures over SHA-256 (JWS's ES256).
package struct P256PublicKey: Sendable {
    /// Why a key was refused.
    package enum Failure: Error, Sendable, Equatable {
        /// The coordinates are not two 32-byte integers of a point on P-256.
        case notOnCurve
    }

    private let key: OwnedECKey

    /// A key from its affine coordinates, each 32 bytes big-endian (a JWK's `x` and `y`, decoded).
    /// - Throws: ``Failure/notOnCurve`` when they are not a point of the curve.
    package init(x: some Collection<UInt8>, y: some Collection<UInt8>) throws(Failure) {
        let x = Array(x)
        let y = Array(y)
        guard x.count == 32, y.count == 32 else { throw .notOnCurve }
        guard let ecKey = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1) else {
            BoringSSL.clearErrors()
            throw .notOnCurve
        }
        let owned = OwnedECKey(ecKey)
        let group = EC_KEY_get0_group(ecKey)
        guard let point = EC_POINT_new(group) else {
            BoringSSL.clearErrors()
            throw .notOnCurve
        }
        defer { EC_POINT_free(point) }
        // X9.62's uncompressed form: 0x04, x, y. Decoding checks that the point is on the curve.
        let encoded: [UInt8] = [0x04] + x + y
        guard EC_POINT_oct2point(group, point, encoded, encoded.count, nil) == 1,
            EC_KEY_set_public_key(ecKey, point) == 1,
            EC_KEY_check_key(ecKey) == 1
        else {
            BoringSSL.clearErrors()
            throw .notOnCurve
        }
        key = owned
    }

    /// Whether `signature` is this key's ECDSA signature of the SHA-256 digest of `message`, in
    /// JWS's form: R then S, each 32 bytes big-endian (IEEE P1363), not DER. Any other length is
    /// not valid.
    package func isValidSignature(_ signature: some Collection<UInt8>, for message: some Collection<UInt8>) -> Bool {
        let signature = Array(signature)
        guard signature.count == 64 else { return false }
        let digest = SHA2.sha256.hash(message)
        guard ECDSA_verify_p1363(digest, digest.count, signature, signature.count, key.pointer) == 1 else {
            BoringSSL.clearErrors()
            return false
        }
        return true
    }
}

/// An `RSA` that this module owns and frees. Once made it is never changed but by BoringSSL, which
/// locks what it caches (Montgomery forms, blinding), so verifying and signing may run on several
/// threads at once and sharing it is safe.
final class OwnedRSA: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { RSA_free(pointer) }
}

/// An `EC_KEY` that this module owns and frees; shared as ``OwnedRSA`` is, for verification only.
final class OwnedECKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EC_KEY_free(pointer) }
}
