import InkraCrypto
import InkraJSON

/// A public key from a JWKS, ready to check signatures for one `kid`.
package struct VerificationKey: Sendable {
    /// `kid`.
    package let kid: String
    /// The JWK's `alg`, when it names one: tokens must then use exactly it.
    package let algorithm: String?
    /// `RSA` or `EC`.
    package let keyType: String
    let material: Material

    enum Material: Sendable {
        case rsa(RSAPublicKey)
        case p256(P256PublicKey)
    }

    /// The check of a signature for a token's `alg`, or `nil` when the key may not be used with it.
    func verifier(for alg: String) -> SignatureCheck? {
        if let algorithm, algorithm != alg { return nil }
        switch (material, alg) {
        case (.rsa(let key), "RS256"): return .rs256(key)
        case (.rsa(let key), "RS384"): return .rs384(key)
        case (.rsa(let key), "RS512"): return .rs512(key)
        case (.p256(let key), "ES256"): return .es256(key)
        default: return nil
        }
    }
}

/// One JWS algorithm bound to one key (RFC 7518 §3.3 and §3.4).
enum SignatureCheck: Sendable {
    case rs256(RSAPublicKey)
    case rs384(RSAPublicKey)
    case rs512(RSAPublicKey)
    case es256(P256PublicKey)

    /// Whether `signature` is this key's signature of `input`. A signature of the wrong length
    /// or form is simply not valid.
    func verify(_ signature: [UInt8], signs input: [UInt8]) -> Bool {
        switch self {
        // RSASSA-PKCS1-v1_5; the signature is as long as the modulus.
        case .rs256(let key): key.isValidSignature(signature, for: input, hash: .sha256)
        case .rs384(let key): key.isValidSignature(signature, for: input, hash: .sha384)
        case .rs512(let key): key.isValidSignature(signature, for: input, hash: .sha512)
        // JWS carries R and S as two 32-byte big-endian integers, not DER.
        case .es256(let key): key.isValidSignature(signature, for: input)
        }
    }
}

/// One usable entry of a JWKS, before its key is built.
struct JWKEntry: Sendable {
    enum Material: Sendable {
        case rsa(modulus: String, exponent: String)
        case p256(x: String, y: String)
    }

    let kid: String
    let algorithm: String?
    let material: Material

    /// Parses a JWKS document. Entries that cannot verify tokens (symmetric `oct` keys, unknown
    /// types or curves, private-use-only keys, entries without a `kid`) are skipped.
    /// - Throws: ``AuthError`` when the document is not a JWKS.
    static func parse(_ data: some Collection<UInt8>, source: String) throws(AuthError) -> [JWKEntry] {
        let root: JSONValue
        do {
            root = try JSONParser.parse(data, maximumDepth: 16)
        } catch {
            throw AuthError(.notJWKS, "\(source) is not valid JSON: \(error)")
        }
        guard let keys = root["keys"]?.array else {
            throw AuthError(.notJWKS, "\(source) is not a JWKS: it has no \"keys\" array")
        }
        return keys.compactMap { key in
            guard let kid = key["kid"]?.string, !kid.isEmpty else { return nil }
            if let use = key["use"]?.string, use != "sig" { return nil }
            let algorithm = key["alg"]?.string
            switch key["kty"]?.string {
            case "RSA":
                guard let n = key["n"]?.string, let e = key["e"]?.string else { return nil }
                if let algorithm, !["RS256", "RS384", "RS512"].contains(algorithm) { return nil }
                return JWKEntry(kid: kid, algorithm: algorithm, material: .rsa(modulus: n, exponent: e))
            case "EC":
                guard key["crv"]?.string == "P-256", let x = key["x"]?.string, let y = key["y"]?.string else {
                    return nil
                }
                if let algorithm, algorithm != "ES256" { return nil }
                return JWKEntry(kid: kid, algorithm: algorithm, material: .p256(x: x, y: y))
            default:
                return nil
            }
        }
    }

    /// Builds the key from its JWK parameters.
    /// - Throws: ``AuthError`` when the parameters are not base64url or do not make a key
    ///   (an RSA modulus under 2048 bits, a point not on P-256).
    func makeKey() throws(AuthError) -> VerificationKey {
        switch material {
        case .rsa(let modulus, let exponent):
            guard let n = CompactToken.decode(modulus.utf8), let e = CompactToken.decode(exponent.utf8)
            else { throw AuthError(.unusableKey, "key \(kid): n or e is not base64url") }
            do {
                let key = try RSAPublicKey(modulus: n, exponent: e)
                return VerificationKey(kid: kid, algorithm: algorithm, keyType: "RSA", material: .rsa(key))
            } catch {
                throw AuthError(.unusableKey, "key \(kid) is not a usable RSA key (2048 bits or more): \(error)")
            }
        case .p256(let x, let y):
            guard let x = CompactToken.decode(x.utf8), let y = CompactToken.decode(y.utf8),
                x.count == 32, y.count == 32
            else { throw AuthError(.unusableKey, "key \(kid): x and y must be 32 bytes of base64url") }
            do {
                let key = try P256PublicKey(x: x, y: y)
                return VerificationKey(kid: kid, algorithm: algorithm, keyType: "EC", material: .p256(key))
            } catch {
                throw AuthError(.unusableKey, "key \(kid) is not a point on P-256: \(error)")
            }
        }
    }
}
