import EmulatorKit
import Foundation
import HTTPText
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime
import InkraUsage
import NIOHTTP1
import OutboundHTTP
import Testing

/// Tokens for imported traffic (docs/emulator.md, "Tokens for imported traffic"): the built
/// `bootstrap` records, with `INKRA_RECORD_EVENTS=1`, the claims its authorizer verified;
/// `inkra-emulator import --with-tokens` writes them per pseudonymized user; `replay` signs them
/// into tokens with the development key, so the imported events run through the authorizer and
/// API Gateway's cache as the recorded traffic did — a premium user with a quota claim, a token
/// that expired while cached, a user in `blocked`, a token refused as expired, a forged token —
/// and every outcome matches what was recorded. No recorded line holds a token, an email, a
/// client address or an agent.
@Suite("bootstrap records verified claims; import --with-tokens and replay sign them back")
struct BootstrapTokenRecordingTests {
    /// 2026-11-16T08:00:00Z, in seconds.
    static let start: TimeInterval = 1_794_816_000
    static let address = "198.51.100.23"
    static let agent = "TokenAgent/1.0 (private-device)"
    static let key: DevelopmentKey = {
        do {
            return try DevelopmentKey(
                directory: ChildProcess.repositoryRoot.appendingPathComponent("emulator/dev-keys"))
        } catch { fatalError("\(error)") }
    }()

    /// The runtime's settings: recording on, each event at its request time, the development
    /// pool's issuer, client and keys (as `run-runtime` configures a runtime).
    static func settings() -> [String: String] {
        [
            "INKRA_RECORD_EVENTS": "1", "INKRA_CLOCK": "request-time", "COGNITO_USER_POOL_ID": "us-east-1_InkraLocal",
            "COGNITO_REGION": "us-east-1", "COGNITO_CLIENT_IDS": DevelopmentKey.clientID, "INKRA_TOKEN_USE": "id",
            "INKRA_JWKS_FILE": ChildProcess.repositoryRoot.appendingPathComponent("emulator/dev-keys/dev-jwks.json")
                .path,
            "INKRA_COGNITO_ISSUER": "ORIGINAL", "INKRA_DELETE_COGNITO_USER": "false", "LOG_LEVEL": "info",
        ]
    }

    static func token(
        _ sub: String, issued: TimeInterval, lifetime: TimeInterval = 3600, tier: String? = nil,
        groups: [String]? = nil, quota: Int? = nil
    ) throws -> String {
        let claims = DevelopmentTokens.Claims(
            sub: sub, email: "\(sub).private@example.org", tier: tier, groups: groups, quota: quota,
            expiresIn: lifetime)
        return try DevelopmentTokens.mint(with: key, claims: claims, at: Timestamp(timeIntervalSince1970: issued))
    }

    /// A REST `TOKEN` event at an instant (where the emulator puts a replayed authorizer event's time).
    static func authorizerEvent(_ token: String, at seconds: TimeInterval) -> JSONValue {
        [
            "type": "TOKEN", "authorizationToken": .string("Bearer \(token)"),
            "methodArn": "arn:aws:execute-api:us-east-1:123456789012:a1b2c3d4e5/prod/GET/usage",
            "requestContext": ["requestTimeEpoch": .number(Int(seconds * 1000))],
        ]
    }

    /// `GET /usage` as API Gateway sends it once the authorizer let it through: its context
    /// injected as strings, the token still in its header.
    static func usageEvent(_ token: String, user: String, tier: String, quota: Int, at seconds: TimeInterval)
        -> JSONValue
    {
        [
            "resource": "/usage", "path": "/usage", "httpMethod": "GET",
            "headers": [
                "Authorization": .string("Bearer \(token)"), "User-Agent": .string(agent),
                "X-Forwarded-For": .string(address),
            ],
            "requestContext": [
                "resourcePath": "/usage", "httpMethod": "GET", "stage": "prod", "apiId": "a1b2c3d4e5",
                "requestId": .string(UUID().uuidString.lowercased()), "requestTimeEpoch": .number(Int(seconds * 1000)),
                "identity": ["sourceIp": .string(address), "userAgent": .string(agent)],
                "authorizer": [
                    "principalId": .string(user), "userId": .string(user), "tier": .string(tier),
                    "quota": .string(String(quota)), "email": .string("\(user).private@example.org"),
                    "integrationLatency": 0,
                ],
            ],
            "body": .null, "isBase64Encoded": false,
        ]
    }

    /// The recorded scenario: the built bootstrap as the authorizer and as checkUsage, recording;
    /// returns every line it printed and the private values none of them may hold.
    static func recordScenario() async throws -> (capture: [String], secrets: [String]) {
        let t = Self.start
        // Premium with a quota claim, its answer cached from t; a second token issued so that it
        // expires 50 s after its first use at t + 1000, and is served from the cache after that.
        let premium = try Self.token("tk-premium", issued: t - 10, tier: "premium", quota: 40)
        let shortLived = try Self.token("tk-premium", issued: t + 1000 - 3550, tier: "premium", quota: 40)
        let blocked = try Self.token("tk-blocked", issued: t, groups: ["blocked"])
        let late = try Self.token("tk-late", issued: t - 7200)
        let genuine = try Self.token("tk-forger", issued: t)
        let forged = String(genuine.dropLast(6)) + "AAAAAA"
        let authorizerEvents = [
            Self.authorizerEvent(premium, at: t), Self.authorizerEvent(blocked, at: t + 10),
            Self.authorizerEvent(late, at: t + 20), Self.authorizerEvent(forged, at: t + 30),
            Self.authorizerEvent(shortLived, at: t + 1000),
        ]
        let usageEvents = [
            Self.usageEvent(premium, user: "tk-premium", tier: "premium", quota: 40, at: t + 1),
            Self.usageEvent(premium, user: "tk-premium", tier: "premium", quota: 40, at: t + 200),
            Self.usageEvent(shortLived, user: "tk-premium", tier: "premium", quota: 40, at: t + 1001),
            Self.usageEvent(shortLived, user: "tk-premium", tier: "premium", quota: 40, at: t + 1120),
        ]
        var capture: [String] = []
        var answers: [String] = []
        for (function, events) in [("authorizer", authorizerEvents), ("checkUsage", usageEvents)] {
            let printed = try await BuiltBootstrap.session(function, Self.settings()) { invoke in
                for event in events {
                    let outcome = await invoke(event)
                    switch outcome {
                    case .response(let bytes): answers.append(String(decoding: bytes, as: UTF8.self))
                    case .error(let type, _): answers.append("error \(type)")
                    default: Issue.record("\(function): \(outcome)")
                    }
                }
            }
            capture += (printed.standardOutput + printed.standardError).split(separator: "\n").map(String.init)
        }
        #expect(answers.filter { $0.contains("\"Allow\"") }.count == 2, "\(answers)")
        #expect(answers.filter { $0.contains("\"Deny\"") }.count == 1, "\(answers)")
        #expect(answers.filter { $0.hasPrefix("error") }.count == 2, "\(answers)")

        let recorded = capture.filter { $0.contains("INKRA_RECORDING") }
        #expect(recorded.count == 9, "\(capture)")
        let secrets =
            [premium, shortLived, blocked, late, forged, Self.address, Self.agent] + [
                "tk-premium.private@example.org", "tk-blocked.private@example.org", "tk-late.private@example.org",
                "tk-premium", "tk-blocked", "tk-late", "tk-forger",
            ]
        for line in recorded {
            for secret in secrets { #expect(!line.contains(secret), "a recorded line holds \"\(secret)\": \(line)") }
        }
        // The verified claims are there; nothing of the forged token is.
        #expect(recorded.contains { $0.contains(#""custom:monthly_quota":40"#) })
        #expect(recorded.contains { $0.contains(#""cognito:groups":["blocked"]"#) })
        // Users by their pseudonyms, keyed by the runtime's secret (the development one here).
        let redaction = RecordingRedaction(secret: .development)
        #expect(recorded.contains { $0.contains(#""refusal":"expired""#) && $0.contains(redaction.user("tk-late")) })
        #expect(!recorded.contains { $0.contains("tk-forger") || $0.contains(redaction.user("tk-forger")) })
        #expect(recorded.filter { $0.contains(redaction.user("tk-premium")) }.count == 6, "\(recorded)")

        return (capture, secrets)
    }

    /// Imports a source with `--with-tokens --pseudonymize`, replays the authorizer's and
    /// checkUsage's folders, and checks every outcome and line.
    static func importAndReplay(_ source: URL, in folder: URL, secrets: [String]) async throws {
        let out = folder.appendingPathComponent("recorded")
        let emulator = ChildProcess.built("inkra-emulator")
        let imported = try await ChildProcess.run(
            emulator, ["import", source.path, "--out", out.path, "--with-tokens", "--pseudonymize", "k"])
        #expect(imported.status == 0, "\(imported.standardOutput)\(imported.standardError)")
        #expect(
            imported.standardError.contains("the claims of 4 authorizer recordings of 3 users"),
            "\(imported.standardError)")

        let tokens = try JSONParser.parse(Array(try Data(contentsOf: out.appendingPathComponent(".inkra-tokens.json"))))
        let users = try #require(tokens["users"]?.object)
        #expect(users.count == 3)
        #expect(!users.pairs.contains { $0.key.hasPrefix("tk-") }, "users are pseudonymized: \(users.pairs.map(\.key))")
        let text = tokens.jsonString
        for secret in secrets + ["tk-", "email", "inkra-local-client"] {
            #expect(!text.contains(secret), ".inkra-tokens.json holds \"\(secret)\"")
        }

        let replayed = try await ChildProcess.run(
            emulator,
            [
                "replay", out.appendingPathComponent("authorizer").path, out.appendingPathComponent("checkUsage").path,
                "--jobs", "1",
            ])
        let output = replayed.standardOutput + replayed.standardError
        #expect(replayed.status == 0, "\(output)")
        #expect(output.contains("8 events: 8 passed, 0 failed"), "\(output)")
        let lines = replayed.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.contains("(token signed by replay)") }.count == 8, "\(output)")
        #expect(lines.contains { $0.contains("authorizer") && $0.contains("(expired)") }, "\(output)")
        #expect(lines.contains { $0.contains("Deny (blocked)") }, "\(output)")
        // Events 2 and 4 of the user were answered from the cache, the last after its token expired.
        #expect(
            lines.filter { $0.contains("checkUsage") && $0.contains("(authorizer cached)") }.count == 2, "\(output)")

        // Without the cache, the token that expired while cached is refused, as it would be
        // without API Gateway's cache: the recording answered 200.
        let uncached = try await ChildProcess.run(
            emulator,
            ["replay", out.appendingPathComponent("checkUsage").path, "--jobs", "1", "--authorizer-cache-ttl", "0"])
        #expect(uncached.status == 1, "\(uncached.standardOutput)")
        #expect(uncached.standardOutput.contains("401 (expired)"), "\(uncached.standardOutput)")
    }

    @Test(
        "Recorded, imported through a capture with --with-tokens, replayed through the authorizer with zero mismatches")
    func recordImportReplay() async throws {
        let (capture, secrets) = try await Self.recordScenario()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("capture.log")
        try Data((capture.joined(separator: "\n") + "\n").utf8).write(to: file)
        try await Self.importAndReplay(file, in: folder, secrets: secrets)
    }

    /// As scripts/ci-record.sh does: the lines go into moto's CloudWatch Logs with PutLogEvents
    /// and come back with FilterLogEvents, saved as `aws logs filter-log-events --output json`
    /// prints them ("PutLogEvents" and "FilterLogEvents" in the Amazon CloudWatch Logs API
    /// Reference).
    @Test(
        "Recorded, through moto's CloudWatch Logs and back, imported with --with-tokens and replayed alike",
        .enabled(if: MotoEndpoint.isAvailable, Comment(rawValue: MotoEndpoint.skipReason)))
    func throughCloudWatchLogs() async throws {
        let (capture, secrets) = try await Self.recordScenario()
        let logs = MotoLogs(endpoint: try await MotoEndpoint.url())
        let group = "/aws/lambda/inkra-tokens-\(UUID().uuidString.prefix(8))"
        try await logs.call("CreateLogGroup", ["logGroupName": .string(group)])
        try await logs.call("CreateLogStream", ["logGroupName": .string(group), "logStreamName": "s"])
        let now = Int(Timestamp.now.timeIntervalSince1970 * 1000)
        let events: [JSONValue] = capture.filter { !$0.isEmpty }.enumerated().map { index, line in
            ["timestamp": .number(now + index), "message": .string(line)]
        }
        try await logs.call(
            "PutLogEvents", ["logGroupName": .string(group), "logStreamName": "s", "logEvents": .array(events)])
        var pages: [String] = []
        var next: JSONValue = .null
        repeat {
            var request: JSONObject = ["logGroupName": .string(group)]
            if next != .null { request["nextToken"] = next }
            let page = try await logs.call("FilterLogEvents", .object(request))
            pages.append(page.prettyJSONString)
            next = page["nextToken"] ?? .null
        } while next != .null
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("filtered.json")
        try Data((pages.joined(separator: "\n") + "\n").utf8).write(to: file)
        try await Self.importAndReplay(file, in: folder, secrets: secrets)
    }
}

/// CloudWatch Logs' JSON API on moto (the `logs` service named in the credential scope, which
/// moto routes by; it checks no signature).
struct MotoLogs {
    let endpoint: HTTPURL
    let client = OutboundHTTPClient()

    /// Calls an action and returns its answer.
    @discardableResult
    func call(_ action: String, _ body: JSONValue) async throws -> JSONValue {
        let request = OutboundRequest(
            method: .POST, url: endpoint,
            headers: [
                ("Content-Type", "application/x-amz-json-1.1"), ("X-Amz-Target", "Logs_20140328.\(action)"),
                (
                    "Authorization",
                    "AWS4-HMAC-SHA256 Credential=testing/20261116/us-east-1/logs/aws4_request, SignedHeaders=host, "
                        + "Signature=00"
                ),
            ],
            body: body.jsonBytes)
        let response = try await client.execute(request, timeout: Patience.hang)
        guard response.status == 200 else {
            throw EmulatorError(
                "\(action) answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        return response.body.isEmpty ? .null : try JSONParser.parse(response.body)
    }
}
