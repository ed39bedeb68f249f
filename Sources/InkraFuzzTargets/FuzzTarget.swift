import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraUsage
import Logging
import SingleTable

/// What the fuzzers feed arbitrary bytes to, each with the invariant a run must keep. A broken
/// invariant is a ``FuzzFailure``; the fuzzing driver turns it into a crash that libFuzzer records.
public enum FuzzTarget: String, Sendable, CaseIterable {
    /// The JSON parser: no crash; whatever parses serialises back to the same value.
    case json
    /// The token verifier: no crash; garbage is refused with an ``AuthError``.
    case token
    /// Condition and update expressions on the in-memory table: no crash; a refused write changes nothing.
    case expression
    /// API Gateway events to the three functions: no crash; an answer other than 200 stores nothing.
    case event

    /// Runs one input.
    /// - Throws: ``FuzzFailure`` when the invariant does not hold.
    public func run(_ bytes: [UInt8]) async throws(FuzzFailure) {
        switch self {
        case .json: try JSONRoundTrip.run(bytes)
        case .token: await TokenGarbage.run(bytes)
        case .expression: try await ExpressionAtomicity.run(bytes)
        case .event: try await EventSafety.run(bytes)
        }
    }
}

/// A broken invariant, with what was seen.
public struct FuzzFailure: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let description: String

    init(_ description: String) { self.description = description }
}

/// Logs go nowhere while fuzzing.
let silent = Logger(label: "inkra.fuzz") { _ in SwiftLogNoOpLogHandler() }

/// A fixed instant: 2026-11-16T10:00:00Z.
let fuzzInstant = Date(timeIntervalSince1970: 1_763_287_200)

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
    static let verifier: TokenVerifier = {
        let jwks = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("emulator/dev-keys/dev-jwks.json")
        let keys: any KeySource
        do { keys = try JWKSKeySource(contentsOf: jwks) } catch { fatalError("cannot read \(jwks.path): \(error)") }
        return TokenVerifier(
            configuration: CognitoConfiguration(region: "us-east-1", userPoolId: "us-east-1_InkraLocal"),
            keys: keys, now: { fuzzInstant }, logger: silent)
    }()

    static func run(_ bytes: [UInt8]) async {
        _ = try? await verifier.verify(String(decoding: bytes, as: UTF8.self))
    }
}
