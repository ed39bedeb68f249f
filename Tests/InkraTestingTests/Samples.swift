import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTesting
import InkraTime

/// The recorded events of events/, and what they need to be read as the emulator reads them: the
/// development pool's public keys (emulator/dev-keys/dev-jwks.json, which signed their tokens) and
/// each event's recorded time.
enum Samples {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every event under `events/<folder>/`, by file name, without the expectations.
    static func events(in folders: [String]) throws -> [(name: String, event: JSONValue)] {
        var events: [(String, JSONValue)] = []
        for folder in folders {
            let directory = root.appendingPathComponent("events").appendingPathComponent(folder)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(".json") && !$0.hasSuffix(".expected.json") }.sorted()
            for name in names {
                let data = try Data(contentsOf: directory.appendingPathComponent(name))
                events.append(("\(folder)/\(name)", try JSONParser.parse(Array(data))))
            }
        }
        return events
    }

    /// The authorizer as the emulator runs it over events/: the development pool, ID tokens, at
    /// the event's recorded time.
    static func authorizer(at instant: Timestamp) throws -> Authorizer {
        let jwks = try Data(contentsOf: root.appendingPathComponent("emulator/dev-keys/dev-jwks.json"))
        let configuration = CognitoConfiguration(
            issuer: "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_InkraLocal",
            clientIds: ["inkra-local-client"])
        let verifier = TokenVerifier(
            configuration: configuration, keys: try JWKSKeySource(jwks: Array(jwks)), now: { instant })
        return Authorizer(verifier: verifier)
    }

    /// The caller a token names, read from its payload (unverified): the user a test would describe.
    static func caller(fromToken authorization: String) throws -> Caller {
        let token = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst(7)) : authorization
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw SampleError("not a JWT: \(token)") }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let payload = Data(base64Encoded: base64) else { throw SampleError("payload not base64url: \(token)") }
        let claims = try JSONParser.parse(Array(payload))
        return Caller(
            claims["sub"]?.string ?? "",
            tier: claims["custom:subscription_tier"]?.string.flatMap { Tier(rawValue: $0.lowercased()) },
            groups: claims["cognito:groups"]?.array?.compactMap(\.string) ?? [],
            quota: claims["custom:monthly_quota"]?.string.flatMap { Int($0) },
            email: claims["email"]?.string
        )
    }

    /// An event's members, without the emulator's own (`x-inkra-…`).
    static func keys(_ value: JSONValue?) -> Set<String> {
        Set((value?.object?.keys ?? []).filter { !$0.hasPrefix("x-inkra-") })
    }

    struct SampleError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
