import Crypto
import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTime
import InkraUsage
import Logging
import SingleTable
import _CryptoExtras

/// What the fuzzers feed arbitrary bytes to, each with the invariant a run must keep. A broken
/// invariant is a ``FuzzFailure``; the fuzzing driver turns it into a crash that libFuzzer records.
package enum FuzzTarget: String, Sendable, CaseIterable {
    /// The JSON parser: no crash; whatever parses serialises back to the same value.
    case json
    /// The token verifier: no crash; what it accepts the development key signed; a refusal is an
    /// ``AuthError`` that does not repeat the token.
    case token
    /// Condition and update expressions on the in-memory table: no crash; a refused write changes
    /// nothing, a condition that holds writes, a write leaves the image it returns.
    case expression
    /// API Gateway events to the functions: no crash; an answer other than 200 stores nothing.
    case event

    /// Runs one input.
    /// - Throws: ``FuzzFailure`` when the invariant does not hold.
    package func run(_ bytes: [UInt8]) async throws(FuzzFailure) {
        switch self {
        case .json: try JSONRoundTrip.run(bytes)
        case .token: try await TokenGarbage.run(bytes)
        case .expression: try await ExpressionAtomicity.run(bytes)
        case .event: try await EventSafety.run(bytes)
        }
    }
}

/// A broken invariant, with what was seen.
package struct FuzzFailure: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    package let description: String

    init(_ description: String) { self.description = description }
}

/// Logs go nowhere while fuzzing.
let silent = Logger(label: "inkra.fuzz") { _ in SwiftLogNoOpLogHandler() }

/// A fixed instant: 2026-11-16T10:00:00Z.
let fuzzInstant = Timestamp(timeIntervalSince1970: 1_763_287_200)

enum JSONRoundTrip {
    static func run(_ bytes: [UInt8]) throws(FuzzFailure) {
        guard let value = try? JSONParser.parse(bytes) else { return }
        let written = value.jsonBytes
        guard let reread = try? JSONParser.parse(written) else {
            throw FuzzFailure("serialised JSON does not parse again: \(String(decoding: written, as: UTF8.self))")
        }
        guard reread == value else {
            throw FuzzFailure("round trip changed the value: \(String(decoding: written, as: UTF8.self))")
        }
    }
}

enum TokenGarbage {
    static let jwks = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("emulator/dev-keys/dev-jwks.json")

    static let verifier: TokenVerifier = {
        let keys: any KeySource
        do { keys = try JWKSKeySource(contentsOfFile: jwks.path) } catch {
            fatalError("cannot read \(jwks.path): \(error)")
        }
        return TokenVerifier(
            configuration: CognitoConfiguration(region: "us-east-1", userPoolId: "us-east-1_InkraLocal"),
            keys: keys, now: { fuzzInstant }, logger: silent)
    }()

    static func run(_ bytes: [UInt8]) async throws(FuzzFailure) {
        let token = String(decoding: bytes, as: UTF8.self)
        var refusal: AuthError?
        do {
            _ = try await verifier.verify(token)
        } catch {
            refusal = error
        }
        try check(token, refusal: refusal)
    }

    /// The invariant, given the verifier's answer: a token it accepts carries an RS256 signature
    /// by the development key over its first two parts (checked here without InkraAuth's decoding);
    /// a refusal is an ``AuthError`` whose message never repeats the token (one of at least 16
    /// characters without whitespace, so the message's own words are not mistaken for it).
    static func check(_ token: String, refusal: AuthError?) throws(FuzzFailure) {
        guard let refusal else {
            guard signedByDevelopmentKey(token) else {
                throw FuzzFailure("accepted a token the development key did not sign: \(token.prefix(200))")
            }
            return
        }
        // A token is one run of base64url and dots; a shorter input, or one with spaces, can be a
        // piece of the message's own words ("token has 1 parts") rather than an echo of the token.
        // Compared as bytes: Foundation's `contains` stops at a NUL, so "3" followed by NULs was
        // "found" in "token has 1 parts, not 3".
        let tokenLike = token.utf8.count >= 16 && !token.contains(where: \.isWhitespace)
        if tokenLike, refusal.description.utf8.contains(token.utf8) {
            throw FuzzFailure("the refusal repeats the token: \(refusal.description.prefix(200))")
        }
    }

    /// The development key of emulator/dev-keys, read with Foundation and swift-crypto alone.
    static let developmentKey: _RSA.Signing.PublicKey? = {
        guard let data = try? Data(contentsOf: jwks),
            let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let key = (root["keys"] as? [[String: Any]])?.first,
            let n = (key["n"] as? String).flatMap(base64URL), let e = (key["e"] as? String).flatMap(base64URL)
        else { return nil }
        return try? _RSA.Signing.PublicKey(n: n, e: e)
    }()

    static func signedByDevelopmentKey(_ token: String) -> Bool {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let key = developmentKey, let signature = base64URL(String(parts[2])),
            let header = base64URL(String(parts[0])),
            let fields = try? JSONSerialization.jsonObject(with: header) as? [String: Any],
            fields["alg"] as? String == "RS256"
        else { return false }
        let input = Data("\(parts[0]).\(parts[1])".utf8)
        return key.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: input),
            padding: .insecurePKCS1v1_5)
    }

    static func base64URL(_ text: String) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }
}
