import Crypto
import CryptoExtras
import InkraJSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Mints RS256 tokens: for tests and the local emulator's development tokens, never for
/// production use.
package struct TokenSigner: Sendable {
    /// The key id tokens and the JWKS carry.
    package let kid: String
    private let key: _RSA.Signing.PrivateKey

    /// A signer from a PEM private key (PKCS#1 or PKCS#8).
    package init(privateKeyPEM: String, kid: String) throws {
        key = try _RSA.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        self.kid = kid
    }

    private init(key: _RSA.Signing.PrivateKey, kid: String) {
        self.key = key
        self.kid = kid
    }

    /// A signer with a freshly generated RSA key.
    package static func generate(kid: String, bits: Int = 2048) throws -> TokenSigner {
        let size: _RSA.Signing.KeySize
        switch bits {
        case 3072: size = .bits3072
        case 4096: size = .bits4096
        default: size = .bits2048
        }
        return TokenSigner(key: try _RSA.Signing.PrivateKey(keySize: size), kid: kid)
    }

    /// The private key as PEM.
    package var privateKeyPEM: String { key.pemRepresentation }

    /// The public JWKS: `{"keys":[{"kty":"RSA","kid":…,"alg":"RS256","use":"sig","n":…,"e":…}]}`.
    package var jwks: Data {
        let primitives = try? key.publicKey.getKeyPrimitives()
        let entry: JSONValue = [
            "kty": "RSA",
            "kid": .string(kid),
            "alg": "RS256",
            "use": "sig",
            "n": .string(CompactToken.encode(primitives?.modulus ?? Data())),
            "e": .string(CompactToken.encode(primitives?.publicExponent ?? Data())),
        ]
        let document: JSONValue = ["keys": [entry]]
        return Data(document.jsonString.utf8)
    }

    /// Signs claims with RS256.
    /// - Throws: ``AuthError/Code/unsupportedClaim`` when the claims do not fit their token use's claim set.
    package func sign(_ claims: DevelopmentClaims) throws -> String {
        try sign(payload: claims.payload())
    }

    /// Signs any payload object with RS256 under this key's `kid`.
    package func sign(payload: JSONValue, header extra: JSONObject = JSONObject()) throws -> String {
        var header: JSONObject = ["kid": .string(kid), "alg": "RS256"]
        for (name, value) in extra.pairs { header[name] = value }
        let input =
            CompactToken.encode(Array(JSONValue.object(header).jsonString.utf8)) + "."
            + CompactToken.encode(Array(payload.jsonString.utf8))
        let signature = try key.signature(for: SHA256.hash(data: Array(input.utf8)), padding: .insecurePKCS1v1_5)
        return input + "." + CompactToken.encode(signature.rawRepresentation)
    }
}
