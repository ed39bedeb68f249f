import HTTPText
import InkraCrypto
import InkraJSON

/// Mints RS256 tokens: for tests and the local emulator's development tokens, never for
/// production use.
package struct TokenSigner: Sendable {
    /// The key id tokens and the JWKS carry.
    package let kid: String
    private let key: RSAPrivateKey

    /// A signer from a PEM private key (PKCS#1 or PKCS#8).
    package init(privateKeyPEM: String, kid: String) throws {
        key = try RSAPrivateKey(pem: privateKeyPEM)
        self.kid = kid
    }

    private init(key: RSAPrivateKey, kid: String) {
        self.key = key
        self.kid = kid
    }

    /// A signer with a freshly generated RSA key of `bits` bits: 3072 or 4096, else 2048.
    package static func generate(kid: String, bits: Int = 2048) throws -> TokenSigner {
        TokenSigner(key: try RSAPrivateKey.generate(bits: [3072, 4096].contains(bits) ? bits : 2048), kid: kid)
    }

    /// The public JWKS: `{"keys":[{"kty":"RSA","kid":…,"alg":"RS256","use":"sig","n":…,"e":…}]}`.
    package var jwks: [UInt8] {
        let entry: JSONValue = [
            "kty": "RSA",
            "kid": .string(kid),
            "alg": "RS256",
            "use": "sig",
            "n": .string(Base64.encode(key.modulus, url: true)),
            "e": .string(Base64.encode(key.publicExponent, url: true)),
        ]
        let document: JSONValue = ["keys": [entry]]
        return Array(document.jsonString.utf8)
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
            Base64.encode(JSONValue.object(header).jsonString.utf8, url: true) + "."
            + Base64.encode(payload.jsonString.utf8, url: true)
        let signature = try key.signature(for: input.utf8, hash: .sha256)
        return input + "." + Base64.encode(signature, url: true)
    }
}
