import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime
import Testing

/// API Gateway caches an authorizer's answer per identity source for `authorizerResultTtlInSeconds`
/// (default 300, 0 turns it off, at most 3600):
/// https://docs.aws.amazon.com/apigateway/latest/api/API_Authorizer.html
@Suite("replay: the authorizer cache on the recorded clock")
struct ReplayAuthorizerCacheTests {
    /// 2027-01-15T08:00:00Z.
    static let start = Timestamp(timeIntervalSince1970: 1_800_000_000)

    /// A recording as production answered it, with a 300 s cache: a token that expires 10 s after
    /// its first use, used again 120 s later (answered from the cache: 200) and 400 s later (the
    /// cached answer gone: 401).
    static func recording(in folder: URL) throws {
        let token = try DevelopmentTokens.mint(
            with: Repository.developmentKey, claims: .init(sub: "cached-alice"), at: start.addingTimeInterval(-3590))
        let unauthorized: JSONValue = ["statusCode": 401, "body": ["code": "unauthorized"]]
        let calls: [(seconds: TimeInterval, expected: JSONValue)] = [
            (0, ["statusCode": 200]), (120, ["statusCode": 200]), (400, unauthorized),
        ]
        for (index, call) in calls.enumerated() {
            let time = start.addingTimeInterval(call.seconds)
            var event = SampleEvents.event(.restUsage, token: token, at: time, requestID: "req-\(index + 1)")
            event.set(.string(FunctionName.checkUsage.rawValue), at: ["x-inkra-function"])
            let name = folder.appendingPathComponent("0\(index + 1)-usage")
            try Data(event.prettyJSONString.utf8).write(to: name.appendingPathExtension("json"))
            try Data(call.expected.prettyJSONString.utf8).write(to: name.appendingPathExtension("expected.json"))
        }
    }

    @Test("A token that expired within the TTL replays admitted from the cache, as production answered it")
    func expiredWhileCached() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.recording(in: folder)
        let records = await Replayer(stack: try await EmulatorStack(options: Repository.options())).replay([folder])
        for record in records where !record.ok { Issue.record("\(ReplayReporter.line(for: record))") }
        #expect(records.map { $0.invocation?.statusCode } == [200, 200, 401])
        #expect(records.map { $0.invocation?.authorizer?.cached } == [false, true, false])
        let cachedLine = ReplayReporter.line(for: records[1])
        #expect(cachedLine.contains("checkUsage  200 (authorizer cached)"), "\(cachedLine)")
        #expect(ReplayReporter.json(for: records[1])["authorizer"] == "cached")
        #expect(ReplayReporter.json(for: records[0])["authorizer"] == "invoked")
        // Past the TTL the authorizer runs again and refuses the expired token.
        #expect(records[2].invocation?.refusal == "expired")
        #expect(!ReplayReporter.line(for: records[2]).contains("cached"))
    }

    @Test("With the cache off (TTL 0) the same recording replays the expired token refused: a mismatch")
    func cacheOff() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.recording(in: folder)
        let replayer = Replayer(stack: try await EmulatorStack(options: Repository.options())).cachingAuthorizer(for: 0)
        let records = await replayer.replay([folder])
        #expect(records.map { $0.invocation?.statusCode } == [200, 401, 401])
        #expect(records.map(\.ok) == [true, false, true])
        #expect(records[1].invocation?.refusal == "expired")
        #expect(records[1].mismatches == ["statusCode: expected 200, got 401"])
    }

    @Test("The cache is timed by the events' recorded instants, not by the replay's clock")
    func recordedClock() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.recording(in: folder)
        // A 60 s TTL: the second call (120 s on) is past it, whatever time the replay runs at.
        let replayer = Replayer(stack: try await EmulatorStack(options: Repository.options())).cachingAuthorizer(
            for: 60)
        let records = await replayer.replay([folder])
        #expect(records.map { $0.invocation?.authorizer?.cached } == [false, false, false])
        #expect(records.map { $0.invocation?.statusCode } == [200, 401, 401])
    }

    @Test("Each API's authorizer caches its own answers: a REST answer does not serve an HTTP API request")
    func perAPI() async throws {
        let token = try DevelopmentTokens.mint(
            with: Repository.developmentKey, claims: .init(sub: "two-apis"), at: Self.start)
        let replayer = Replayer(stack: try await EmulatorStack(options: Repository.options()))
        let rest = await replayer.replay(
            event: SampleEvents.event(.restGenerate, token: token, at: Self.start), function: .generateQuestions)
        let http = await replayer.replay(
            event: SampleEvents.event(.httpUsage, token: token, at: Self.start.addingTimeInterval(1)),
            function: .checkUsage)
        let again = await replayer.replay(
            event: SampleEvents.event(.restUsage, token: token, at: Self.start.addingTimeInterval(2)),
            function: .checkUsage)
        #expect([rest, http, again].map(\.statusCode) == [200, 200, 200])
        #expect([rest, http, again].map { $0.authorizer?.cached } == [false, false, true])
    }

    @Test("The command line: the cached line in text and --json; --authorizer-cache-ttl 0 exits 1")
    func commandLine() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.recording(in: folder)
        let text = try await runEmulator(["replay", folder.path, "--jobs", "1"])
        #expect(text.status == 0, "\(text.standardOutput)\(text.standardError)")
        #expect(text.standardOutput.contains("02-usage.json  checkUsage  200 (authorizer cached)"))
        let json = try await runEmulator(["replay", folder.path, "--json"])
        let lines = try json.standardOutput.split(separator: "\n").map { try JSONParser.parse(String($0)) }
        #expect(lines.map { $0["authorizer"]?.string } == ["invoked", "cached", "invoked"])
        let off = try await runEmulator(["replay", folder.path, "--authorizer-cache-ttl", "0"])
        #expect(off.status == 1)
        #expect(off.standardOutput.contains("statusCode: expected 200, got 401"))
        let wrong = try await runEmulator(["replay", folder.path, "--authorizer-cache-ttl", "3601"])
        #expect(wrong.status == 2)
        #expect(wrong.standardError.contains("--authorizer-cache-ttl must be from 0 to 3600 seconds"))
    }

    @Test("replay's default TTL is template.yaml's ReauthorizeEvery")
    func templateTTL() throws {
        let authorizer = try #require(TemplateText().resource("Api"), "template.yaml has no Api resource")
        let value = try #require(TemplateText.value("ReauthorizeEvery", in: authorizer))
        #expect(TimeInterval(value) == AuthorizerCache.templateTimeToLive)
    }
}
