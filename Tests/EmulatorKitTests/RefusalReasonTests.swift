import Foundation
import InkraJSON
import InkraTestSupport
import Testing

/// Every refusal says why, on its line: `invoke`, `replay` and `serve`'s access log carry the
/// authorizer's reason code (never the token); `invoke` runs the authorizer chain for an API event
/// that carries a token and no caller; SAM's placeholder authorizer section does not skip it.
@Suite("Refusals say why: invoke, replay and serve's access log (spawned)")
struct RefusalReasonTests {
    /// An event from `generate-event KIND --sub ada`, with its request time moved to `epochMilliseconds`.
    static func event(_ kind: String, at epochMilliseconds: Int? = nil) async throws -> JSONValue {
        let printed = try await runEmulator(["generate-event", kind, "--sub", "ada"])
        var event = try JSONParser.parse(Array(printed.standardOutput.utf8))
        if let epochMilliseconds { event.set(.number(epochMilliseconds), at: ["requestContext", "requestTimeEpoch"]) }
        return event
    }

    static func write(_ event: JSONValue, to folder: URL, as name: String) throws -> URL {
        let file = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(event.jsonBytes).write(to: file)
        return file
    }

    @Test("invoke: generate-event's own API event passes the chain (200); recorded in 2015 it is 401, saying why")
    func invokeSaysWhy() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fresh = try Self.write(try await Self.event("rest-usage"), to: folder, as: "fresh.json")
        let answered = try await runEmulator(["invoke", "checkUsage", "--event", fresh.path])
        #expect(answered.status == 0)
        #expect(try JSONParser.parse(Array(answered.standardOutput.utf8))["statusCode"] == 200, "\(answered)")
        #expect(!answered.standardError.contains("refused"))

        // SAM's sample events carry a 2015 request time: the token was issued after it.
        let old = try Self.write(try await Self.event("rest-usage", at: 1_428_582_896_000), to: folder, as: "old.json")
        let refused = try await runEmulator(["invoke", "checkUsage", "--event", old.path])
        #expect(refused.status == 0)
        #expect(try JSONParser.parse(Array(refused.standardOutput.utf8))["statusCode"] == 401)
        #expect(refused.standardError.contains("the authorizer refused the token: issuedInFuture"))
        #expect(refused.standardError.contains("try invoke --now"))
        let token = try #require(
            try JSONParser.parse(Array(try Data(contentsOf: old)))["headers"]?["Authorization"]?.string)
        #expect(!refused.standardError.contains(String(token.dropFirst("Bearer ".count))))
    }

    @Test("SAM's placeholder authorizer claims do not skip the chain: with a token it runs, without one 401")
    func samPlaceholder() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var event = try await Self.event("http-usage")
        // What `sam local generate-event apigateway http-api-proxy` puts there.
        event.set(
            ["jwt": ["claims": ["claim1": "value1", "claim2": "value2"], "scopes": ["scope1", "scope2"]]],
            at: ["requestContext", "authorizer"])
        let withToken = try Self.write(event, to: folder, as: "with-token.json")
        let answered = try await runEmulator(["invoke", "checkUsage", "--event", withToken.path])
        #expect(try JSONParser.parse(Array(answered.standardOutput.utf8))["statusCode"] == 200, "\(answered)")
        event.set(nil, at: ["headers", "authorization"])
        event.set(nil, at: ["headers", "Authorization"])
        let withoutToken = try Self.write(event, to: folder, as: "without-token.json")
        let refused = try await runEmulator(["invoke", "checkUsage", "--event", withoutToken.path])
        #expect(try JSONParser.parse(Array(refused.standardOutput.utf8))["statusCode"] == 401, "\(refused)")
        #expect(refused.standardError.contains("API Gateway refused the request: noToken"), "\(refused.standardError)")
    }

    @Test("An event with no token: replay's line says 401 (noToken), --json refusal noToken, invoke says why")
    func noToken() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var event = try await Self.event("rest-usage")
        event.set(nil, at: ["headers", "Authorization"])
        event.set(nil, at: ["multiValueHeaders", "Authorization"])
        let file = try Self.write(event, to: folder, as: "checkUsage/no-token.json")
        let text = try await runEmulator(["replay", folder.path])
        #expect(text.standardOutput.contains("checkUsage  401 (noToken)"), "\(text.standardOutput)")
        let json = try await runEmulator(["replay", folder.path, "--json"])
        let line = try #require(json.standardOutput.split(separator: "\n").first)
        #expect(try JSONParser.parse(Array(line.utf8))["refusal"] == "noToken")
        let invoked = try await runEmulator(["invoke", "checkUsage", "--event", file.path])
        #expect(invoked.status == 0)
        #expect(
            invoked.standardError.contains(
                "inkra-emulator: API Gateway refused the request: noToken (no Authorization header, and no authorizer "
                    + "section naming a caller)"), "\(invoked.standardError)")
    }

    @Test("replay: the line of a refused event names the reason, and --json carries it as refusal")
    func replaySaysWhy() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try Self.write(
            try await Self.event("rest-usage", at: 1_428_582_896_000), to: folder, as: "checkUsage/old.json")
        let text = try await runEmulator(["replay", folder.path])
        #expect(text.standardOutput.contains("checkUsage  401 (issuedInFuture)"), "\(text.standardOutput)")
        let json = try await runEmulator(["replay", folder.path, "--json"])
        let line = try #require(json.standardOutput.split(separator: "\n").first)
        #expect(try JSONParser.parse(Array(line.utf8))["refusal"] == "issuedInFuture")
    }

    @Test("serve's access log: refused=<reason> on a refused request's line, and no client address")
    func accessLogSaysWhy() async throws {
        let expired = try await runEmulator([
            "token", "--sub", "ada", "--now", "2020-01-01T00:00:00Z", "--expires-in", "60",
        ]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let logged = try await runEmulator([
            "exec", "--no-cognito", "--no-console", "--", "sh", "-c",
            "curl -s -o /dev/null -H 'Authorization: Bearer \(expired)' \"$INKRA_API_URL/usage\"",
        ])
        let line = try #require(
            logged.standardError.split(separator: "\n").first { $0.contains("\"GET /usage HTTP/1.1\"") },
            "\(logged.standardError)")
        #expect(line.hasPrefix("- ["))
        #expect(line.contains(" 401 ") && line.contains("refused=expired"))
        #expect(!line.contains(expired) && !line.contains("127.0.0.1 ["))
    }

    @Test("serve's access log: a request with no token says authorizer=notCalled refused=noToken, as docs/emulator.md")
    func accessLogNoToken() async throws {
        let logged = try await runEmulator([
            "exec", "--no-cognito", "--no-console", "--", "sh", "-c", "curl -s -o /dev/null \"$INKRA_API_URL/usage\"",
        ])
        let line = try #require(
            logged.standardError.split(separator: "\n").first { $0.contains("\"GET /usage HTTP/1.1\"") },
            "\(logged.standardError)")
        #expect(line.contains(" 401 ") && line.contains("authorizer=notCalled refused=noToken "), "\(line)")
        let docs = try String(
            contentsOf: ChildProcess.repositoryRoot.appendingPathComponent("docs/emulator.md"), encoding: .utf8)
        #expect(docs.contains("authorizer=invoked|cached|notCalled"))
    }
}
