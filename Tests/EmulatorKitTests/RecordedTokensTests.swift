import EmulatorKit
import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime
import Testing

/// `.inkra-tokens.json` (`import --with-tokens`) and replay's signing of it: which recorded claims apply
/// to an event, the file's errors, and an imported event run through the authorizer with a token
/// carrying the recorded claims instead of its injected context.
@Suite("Recorded tokens")
struct RecordedTokensTests {
    /// 2026-11-16T08:00:00Z in milliseconds.
    static let start: Int64 = 1_794_816_000_000

    static func authorizerRecording(
        _ sub: String, at offset: Int64, id: String, tier: String? = nil, exp: Int64 = 1_794_819_600,
        refusal: String? = nil
    ) -> Recording {
        var claims: JSONObject = [
            "sub": .string(sub), "token_use": "id", "iat": 1_794_815_990, "exp": .number(String(exp)),
        ]
        if let tier { claims["custom:subscription_tier"] = .string(tier) }
        return Recording(
            function: "authorizer", requestID: id, epochMilliseconds: start + offset, decision: ["effect": "Allow"],
            claims: .object(claims), refusal: refusal)
    }

    /// `GET /usage` of a user as import writes it: the authorizer's context injected, the token redacted.
    static func usageEvent(user: String, tier: String, at offset: Int64) -> JSONValue {
        [
            "resource": "/usage", "path": "/usage", "httpMethod": "GET",
            "headers": ["Authorization": "[redacted]"],
            "requestContext": [
                "resourcePath": "/usage", "httpMethod": "GET", "stage": "prod", "apiId": "a1b2c3d4e5",
                "requestTimeEpoch": .number(String(start + offset)),
                "authorizer": [
                    "principalId": .string(user), "userId": .string(user), "tier": .string(tier), "quota": "5",
                ],
            ],
            "x-inkra-function": "checkUsage", "body": .null,
        ]
    }

    /// `GET /usage` on the HTTP API as import writes it: the Lambda authorizer's context under `lambda`.
    static func httpUsageEvent(user: String, tier: String, at offset: Int64) -> JSONValue {
        [
            "version": "2.0", "routeKey": "GET /usage", "rawPath": "/usage", "rawQueryString": "",
            "headers": ["authorization": "[redacted]"],
            "requestContext": [
                "apiId": "a1b2c3d4e5", "stage": "$default", "routeKey": "GET /usage",
                "http": ["method": "GET", "path": "/usage"], "timeEpoch": .number(String(start + offset)),
                "authorizer": ["lambda": ["userId": .string(user), "tier": .string(tier), "quota": 5]],
            ],
            "x-inkra-function": "checkUsage", "isBase64Encoded": false,
        ]
    }

    @Test("The claims that apply to an event are its user's latest admitting authorizer recording at or before it")
    func selection() throws {
        var tokens = RecordedTokens()
        tokens.add(Self.authorizerRecording("u1", at: 60_000, id: "b", tier: "premium"))
        tokens.add(Self.authorizerRecording("u1", at: 0, id: "a"))
        tokens.add(Self.authorizerRecording("u1", at: 120_000, id: "c", refusal: "expired"))
        #expect(tokens.add(Recording(function: "authorizer", requestID: "d", epochMilliseconds: Self.start)) == nil)
        #expect(tokens.entry(for: "u1", admittedAtOrBefore: Self.start - 1) == nil)
        #expect(tokens.entry(for: "u1", admittedAtOrBefore: Self.start)?.requestID == "a")
        #expect(tokens.entry(for: "u1", admittedAtOrBefore: Self.start + 59_999)?.requestID == "a")
        #expect(tokens.entry(for: "u1", admittedAtOrBefore: Self.start + 60_000)?.requestID == "b")
        // The refusal at 120 s was another token of the user's: an event the function answered
        // after it was let through with the latest token that passed.
        #expect(tokens.entry(for: "u1", admittedAtOrBefore: Self.start + 500_000)?.requestID == "b")
        #expect(tokens.entry(for: "u1", requestID: "c")?.refusal == "expired")
        #expect(tokens.entry(for: "u2", admittedAtOrBefore: Self.start + 500_000) == nil)
        // Read back as written; the subject is the key, not a claim.
        let read = try RecordedTokens(json: tokens.json)
        #expect(read == tokens)
        #expect(tokens.json["users"]?["u1"]?.array?.first?["claims"]?["sub"] == nil)
        // Pseudonymized as the events are.
        var hidden = RecordedTokens()
        let user = hidden.add(Self.authorizerRecording("u1", at: 0, id: "a"), pseudonymizer: Pseudonymizer(key: "k"))
        #expect(user == Pseudonymizer(key: "k").pseudonym("u1"))
    }

    @Test("A malformed .inkra-tokens.json names the member that is wrong")
    func malformed() {
        let cases: [(JSONValue, String)] = [
            (["v": 2, "users": [:]], "\"v\" must be 1"),
            (["v": 1], "\"users\" must be an object"),
            (
                ["v": 1, "users": ["u": [["epochMillis": 1, "claims": ["iat": 1]]]]],
                "users.u[0].claims.exp must be a number"
            ),
            (["v": 1, "users": ["u": [["claims": ["exp": 1]]]]], "users.u[0].epochMillis"),
        ]
        for (json, message) in cases {
            #expect {
                _ = try RecordedTokens(json: json)
            } throws: { error in
                (error as? EmulatorError)?.message.contains(message) == true
            }
        }
    }

    @Test(
        "An imported event runs through the authorizer with the recorded claims, not its injected context",
        arguments: ["REST", "HTTP API"])
    func signedReplay(api: String) async throws {
        var tokens = RecordedTokens()
        tokens.add(Self.authorizerRecording("u-premium", at: 0, id: "auth-1", tier: "premium"))
        let stack = try await EmulatorStack(options: Repository.options())
        let signer = RecordedTokenSigner(
            tokens: tokens, key: Repository.developmentKey, configuration: try stack.options.cognitoConfiguration())
        // The injected context says free: the recorded claims say premium, and they decide.
        let event =
            api == "REST"
            ? Self.usageEvent(user: "u-premium", tier: "free", at: 1_000)
            : Self.httpUsageEvent(user: "u-premium", tier: "free", at: 1_000)
        let headerName = api == "REST" ? "Authorization" : "authorization"
        let signed = try #require(
            try signer.signing(event, function: .checkUsage, at: Timestamp(timeIntervalSince1970: 1_794_816_001)))
        #expect(signed["requestContext"]?["authorizer"] == nil)
        let header = try #require(signed["headers"]?[headerName]?.string)
        #expect(header.hasPrefix("Bearer ey"))
        // The same recording signs the same token (the cache's key).
        #expect(
            try signer.signing(event, function: .checkUsage, at: Timestamp(timeIntervalSince1970: 1_794_816_100))?[
                "headers"]?[headerName]?.string == header)

        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(event.prettyJSONString.utf8).write(to: folder.appendingPathComponent("usage.json"))
        var replayer = Replayer(stack: stack)
        replayer.recordedTokens = signer
        let records = await replayer.replay([folder])
        let record = try #require(records.first)
        #expect(record.tokenSigned)
        #expect(record.invocation?.authorizer != nil, "the authorizer ran")
        guard case .success(let answer)? = record.invocation?.outcome else {
            Issue.record("no answer: \(String(describing: record.invocation?.outcome))")
            return
        }
        #expect(answer["statusCode"] == 200)
        #expect(try JSONParser.parse(answer["body"]?.string ?? "")["tier"] == "premium")
        #expect(ReplayReporter.line(for: record).contains("200 (token signed by replay)"))

        // A user without recorded claims keeps the context it was imported with.
        #expect(
            try signer.signing(
                Self.usageEvent(user: "u-other", tier: "free", at: 1_000), function: .checkUsage,
                at: Timestamp(timeIntervalSince1970: 1_794_816_001)) == nil)
        // Before the user's first recording, none applies either.
        #expect(
            try signer.signing(event, function: .checkUsage, at: Timestamp(timeIntervalSince1970: 1_794_815_999)) == nil
        )
    }

    @Test(
        "The signed token is Cognito's claim set with the recorded claims: times, groups, both tier attributes, quota")
    func signedClaims() throws {
        let signer = RecordedTokenSigner(
            tokens: RecordedTokens(), key: Repository.developmentKey,
            configuration: try Repository.options().cognitoConfiguration())
        var tokens = RecordedTokens()
        tokens.add(
            Recording(
                function: "authorizer", requestID: "auth-9", epochMilliseconds: Self.start,
                decision: ["effect": "Allow"],
                claims: [
                    "sub": "u1", "token_use": "id", "iat": 1_794_815_990, "exp": 1_794_819_590,
                    "cognito:groups": ["blocked"], "custom:tier": "premium", "custom:monthly_quota": 40,
                ]))
        let entry = try #require(tokens.entry(for: "u1", requestID: "auth-9"))
        let payload = try signer.claims(for: "u1", entry).payload()
        #expect(payload["sub"] == "u1")
        #expect(payload["jti"] == "auth-9", "one recording, one token")
        #expect(payload["iat"] == 1_794_815_990)
        #expect(payload["exp"] == 1_794_819_590)
        #expect(payload["cognito:groups"] == ["blocked"])
        #expect(payload["custom:tier"] == "premium")
        #expect(payload["custom:monthly_quota"] == "40", "a string, as Cognito writes custom attributes")
        #expect(payload["email"] == nil)
    }

    @Test("The what-if report runs imported events with their signed tokens too: the recorded tier decides")
    func whatIfSigns() async throws {
        var tokens = RecordedTokens()
        tokens.add(Self.authorizerRecording("u-premium", at: 0, id: "auth-1", tier: "premium"))
        // Two calls in one hour, both answered 200 when recorded; the injected context says free.
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (index, offset) in [Int64(1_000), 60_000].enumerated() {
            var event = Self.usageEvent(user: "u-premium", tier: "free", at: offset)
            for (path, value) in [
                (["resource"], JSONValue.string("/questions")), (["path"], "/questions"), (["httpMethod"], "POST"),
                (["requestContext", "resourcePath"], "/questions"), (["requestContext", "httpMethod"], "POST"),
                (["requestContext", "requestId"], .string("call-\(index)")),
                (["x-inkra-function"], "generateQuestions"), (["body"], #"{"topic":"a first job"}"#),
            ] {
                event.set(value, at: path)
            }
            try Data(event.prettyJSONString.utf8).write(to: folder.appendingPathComponent("call-\(index).json"))
            try Data(#"{"statusCode": 200}"#.utf8).write(
                to: folder.appendingPathComponent("call-\(index).expected.json"))
        }
        let limits = Repository.temporaryDirectory().appendingPathExtension("json")
        defer { try? FileManager.default.removeItem(at: limits) }
        try Data(#"{"free": {"hourly": 1}}"#.utf8).write(to: limits)
        var options = try Repository.options()
        options.limitsFile = limits
        let stack = try await EmulatorStack(options: options)
        var whatIf = try WhatIfReplayer(stack: stack)
        whatIf.replayer.recordedTokens = RecordedTokenSigner(
            tokens: tokens, key: Repository.developmentKey, configuration: try stack.options.cognitoConfiguration())
        let report = await whatIf.report([folder])
        // Signed, the calls are a premium user's, whom an hourly limit of 1 for free users does not
        // touch; run on the injected context, the second would be reported as newly refused.
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.compared == 2)
        #expect(report.tiers.map(\.tier) == ["premium"])
        #expect(report.changedCalls == 0)
    }

    @Test("An authorizer event naming a recording .inkra-tokens.json does not hold is a problem, not a guess")
    func unknownRecording() async throws {
        let signer = RecordedTokenSigner(
            tokens: RecordedTokens(), key: Repository.developmentKey,
            configuration: try Repository.options().cognitoConfiguration())
        let event: JSONValue = [
            "type": "TOKEN", "methodArn": "arn:aws:execute-api:us-east-1:123456789012:imported/prod/GET/imported",
            "x-inkra-recorded-token": ["user": "u", "requestId": "nope"],
        ]
        #expect {
            _ = try signer.signing(event, function: .authorizer, at: nil)
        } throws: { error in
            (error as? EmulatorError)?.message.contains("names a recording .inkra-tokens.json does not hold") == true
        }
        // Replayed without the file at all: a problem that names it, not a refusal for want of a token.
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var written = event
        written.set("authorizer", at: ["x-inkra-function"])
        try Data(written.prettyJSONString.utf8).write(to: folder.appendingPathComponent("auth.json"))
        let records = await Replayer(stack: try await EmulatorStack(options: Repository.options())).replay([folder])
        #expect(records.first?.problem?.contains("signed from .inkra-tokens.json, which is not in its folder") == true)
    }

    @Test("replay refuses recorded claims it cannot sign: another issuer trusted, a malformed file")
    func replayRefuses() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var tokens = RecordedTokens()
        tokens.add(Self.authorizerRecording("u1", at: 0, id: "a"))
        try tokens.write(into: folder)
        let events = folder.appendingPathComponent("checkUsage")
        try FileManager.default.createDirectory(at: events, withIntermediateDirectories: true)
        try Data(Self.usageEvent(user: "u1", tier: "free", at: 1_000).prettyJSONString.utf8)
            .write(to: events.appendingPathComponent("usage.json"))
        let foreign = try await runEmulator([
            "replay", events.path, "--issuer", "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Other",
        ])
        #expect(foreign.status != 0)
        #expect(
            foreign.standardError.contains(
                "replay signs its claims with the development key, which this run does not trust"),
            "\(foreign.standardError)")
        try Data(#"{"v":1,"users":{"u1":[{"epochMillis":1}]}}"#.utf8)
            .write(to: folder.appendingPathComponent(RecordedTokens.fileName))
        let malformed = try await runEmulator(["replay", events.path])
        #expect(malformed.status != 0)
        #expect(
            malformed.standardError.contains(".inkra-tokens.json: users.u1[0].claims must be an object"),
            "\(malformed.standardError)")
        // Without the file, the event replays with its injected context, as every import did before.
        try FileManager.default.removeItem(at: folder.appendingPathComponent(RecordedTokens.fileName))
        let plain = try await runEmulator(["replay", events.path])
        #expect(plain.status == 0, "\(plain.standardOutput)\(plain.standardError)")
        #expect(!plain.standardOutput.contains("token signed by replay"))
    }
}
