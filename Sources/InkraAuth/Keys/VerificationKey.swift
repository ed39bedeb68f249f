import InkraJSON
import JWTKit

/// A public key from a JWKS, ready to check signatures for one `kid`.
public struct VerificationKey: Sendable {
    /// `kid`.
    public let kid: String
    /// The JWK's `alg`, when it names one: tokens must then use exactly it.
    public let algorithm: String?
    /// `RSA` or `EC`.
    public let keyType: String
    /// jwt-kit's verifier for each algorithm this key may be used with.
    let verifiers: [String: any JWTAlgorithm]

    /// The verifier for a token's `alg`, or `nil` when the key may not be used with it.
    func verifier(for alg: String) -> (any JWTAlgorithm)? {
        if let algorithm, algorithm != alg { return nil }
        return verifiers[alg]
    }
}

/// One usable entry of a JWKS, before jwt-kit builds its verifier.
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
    /// - Throws: ``KeySourceError`` when the document is not a JWKS.
    static func parse(_ data: some Collection<UInt8>, source: String) throws(KeySourceError) -> [JWKEntry] {
        let root: JSONValue
        do {
            root = try JSONParser.parse(data, maximumDepth: 16)
        } catch {
            throw KeySourceError("\(source) is not valid JSON: \(error)")
        }
        guard let keys = root["keys"]?.array else {
            throw KeySourceError("\(source) is not a JWKS: it has no \"keys\" array")
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

    /// Builds jwt-kit verifiers for the key.
    func makeKey() async throws -> VerificationKey {
        let collection = JWTKeyCollection()
        let identifier = JWKIdentifier(string: kid)
        var verifiers: [String: any JWTAlgorithm] = [:]
        switch material {
        case .rsa(let modulus, let exponent):
            let key = try Insecure.RSA.PublicKey(modulus: modulus, exponent: exponent)
            let digests: [(String, DigestAlgorithm)] = [("RS256", .sha256), ("RS384", .sha384), ("RS512", .sha512)]
            for (name, digest) in digests where algorithm == nil || algorithm == name {
                let single = JWTKeyCollection()
                await single.add(rsa: key, digestAlgorithm: digest, kid: identifier)
                verifiers[name] = try await single.getKey(for: identifier)
            }
            return VerificationKey(kid: kid, algorithm: algorithm, keyType: "RSA", verifiers: verifiers)
        case .p256(let x, let y):
            let key = try ES256PublicKey(parameters: (x: x, y: y))
            await collection.add(ecdsa: key, kid: identifier)
            verifiers["ES256"] = try await collection.getKey(for: identifier)
            return VerificationKey(kid: kid, algorithm: algorithm, keyType: "EC", verifiers: verifiers)
        }
    }
}

/// A key source that cannot be used: an unreadable or malformed JWKS, or a failed fetch.
public struct KeySourceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, naming the file or URL.
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
