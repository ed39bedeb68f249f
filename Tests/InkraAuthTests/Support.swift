import Crypto
import Foundation
import InkraAuth
import InkraJSON
import InkraTime

/// One RSA key for the whole module: key generation is slow in debug builds.
let testSigner: TokenSigner = {
    do { return try TokenSigner.generate(kid: "key-1") } catch { fatalError("\(error)") }
}()

/// A second key, unknown to the verifier, under the same kid.
let impostor: TokenSigner = {
    do { return try TokenSigner.generate(kid: "key-1") } catch { fatalError("\(error)") }
}()

let issuer = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Pool"
let now = Timestamp(timeIntervalSince1970: 1_800_000_000)

/// Claims valid at `now`.
func validClaims(_ change: (inout JSONObject) -> Void = { _ in }) -> JSONValue {
    var claims: JSONObject = [
        "sub": "user-1", "iss": .string(issuer), "token_use": "access", "client_id": "client-a",
        "iat": .number(Int(now.timeIntervalSince1970) - 60), "exp": .number(Int(now.timeIntervalSince1970) + 3600),
        "email": "u@example.com",
    ]
    change(&claims)
    return .object(claims)
}

func verifier(
    clientIds: [String] = ["client-a"],
    tokenUse: TokenUse = .access,
    tolerance: TimeInterval = 0,
    keys: (any KeySource)? = nil
) throws -> TokenVerifier {
    TokenVerifier(
        configuration: CognitoConfiguration(
            issuer: issuer, clientIds: clientIds, tokenUse: tokenUse, clockTolerance: tolerance),
        keys: try keys ?? JWKSKeySource(jwks: testSigner.jwks),
        now: { now }
    )
}

/// base64url without padding.
func b64url(_ bytes: some Sequence<UInt8>) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

/// A token with a hand-made header and payload and a chosen signature.
func craft(header: String, payload: String, signature: String = "c2ln") -> String {
    "\(b64url(Array(header.utf8))).\(b64url(Array(payload.utf8))).\(signature)"
}

/// An HS256 token signed with a key's bytes (the classic algorithm-confusion attack).
func hmacToken(secret: Data, payload: JSONValue) -> String {
    let input =
        "\(b64url(Array(#"{"alg":"HS256","kid":"key-1","typ":"JWT"}"#.utf8))).\(b64url(Array(payload.jsonString.utf8)))"
    let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: secret))
    return "\(input).\(b64url(Array(mac)))"
}
