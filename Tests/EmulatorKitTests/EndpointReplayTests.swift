import EmulatorKit
import Foundation
import InkraJSON
import InkraTestSupport
import Testing

/// `replay endpoint`: the built `inkra-emulator` sends event folders to `serve` as a deployed
/// stage (under `exec`, REST and HTTP API payloads, with a stage), its test user signed in through
/// the local pool's SRP-only app client by the command's own SRP client; and a storm of 500s stops
/// the run.
@Suite("replay endpoint: events sent to serve as a deployed stack (spawned)")
struct EndpointReplayTests {
    /// A REST API (payload 1.0) event for `GET /usage` on stage `prod`, with `headers`.
    static func restEvent(_ path: String, headers: JSONValue) -> JSONValue {
        [
            "resource": .string(path), "path": .string(path), "httpMethod": "GET", "headers": headers,
            "queryStringParameters": nil, "body": nil, "isBase64Encoded": false,
            "requestContext": [
                "stage": "prod", "path": .string("/prod" + path), "requestTimeEpoch": 1_794_819_600_000,
                "requestId": "remote-replay-1",
            ],
        ]
    }

    /// An HTTP API (payload 2.0) event for `GET /usage`, its raw path under stage `prod`.
    static func httpEvent(_ path: String, headers: JSONValue) -> JSONValue {
        [
            "version": "2.0", "routeKey": .string("GET " + path), "rawPath": .string("/prod" + path),
            "rawQueryString": "", "headers": headers,
            "requestContext": [
                "http": ["method": "GET", "path": .string("/prod" + path)], "stage": "prod",
                "timeEpoch": 1_794_819_600_000, "requestId": "remote-replay-2",
            ],
            "isBase64Encoded": false,
        ]
    }

    /// A recorded token that the stack would refuse: sent, it would turn every 200 into a 401.
    static let recordedToken = "Bearer recorded.token.never-sent"

    /// Writes a folder of events for `payload` (v1 or v2) and their expectations.
    static func writeEvents(payload: String, in directory: URL, wrongExpectation: Bool = false) throws -> URL {
        let folder = directory.appendingPathComponent("smoke/checkUsage")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let make = payload == "v2" ? httpEvent : restEvent
        func write(_ name: String, _ event: JSONValue, _ expected: JSONValue?) throws {
            try Data(event.prettyJSONString.utf8).write(to: folder.appendingPathComponent("\(name).json"))
            if let expected {
                try Data(expected.prettyJSONString.utf8).write(
                    to: folder.appendingPathComponent("\(name).expected.json"))
            }
        }
        try write(
            "01-usage", make("/usage", ["Authorization": .string(recordedToken), "Accept": "application/json"]),
            ["statusCode": 200, "body": ["tier": "free", "used": wrongExpectation ? 7 : 0, "limit": 5]])
        try write("02-no-token", make("/usage", ["Accept": "application/json"]), ["statusCode": 401])
        try write(
            "03-refused-token", make("/usage", ["Authorization": .string(recordedToken)]), ["statusCode": 401])
        let authorizer = directory.appendingPathComponent("smoke/authorizer")
        try FileManager.default.createDirectory(at: authorizer, withIntermediateDirectories: true)
        try Data(#"{"type":"TOKEN","authorizationToken":"x","methodArn":"arn:x"}"#.utf8).write(
            to: authorizer.appendingPathComponent("01-token.json"))
        return directory.appendingPathComponent("smoke")
    }

    /// Signs a user up in the local pool (curl, unsigned as the app) and makes its password
    /// permanent, then runs `replay endpoint` signed in as that user, all under `exec`.
    static let session = #"""
        set -e
        emulator=$1; events=$2; shift 2
        cognito() {
            curl -sf "$INKRA_COGNITO_URL" -H 'Content-Type: application/x-amz-json-1.1' \
                -H "X-Amz-Target: AWSCognitoIdentityProviderService.$1" -d "$2" > /dev/null
        }
        cognito SignUp '{"ClientId":"'"$INKRA_APP_CLIENT_ID"'","Username":"tester@example.com","Password":"Correct-horse-9","UserAttributes":[{"Name":"email","Value":"tester@example.com"}]}'
        cognito AdminSetUserPassword '{"UserPoolId":"'"$INKRA_USER_POOL_ID"'","Username":"tester@example.com","Password":"Correct-horse-9","Permanent":true}'
        INKRA_PASSWORD=Correct-horse-9 "$emulator" replay endpoint "$INKRA_API_URL" "$events" \
            --user tester@example.com --user-pool-id "$INKRA_USER_POOL_ID" --client-id "$INKRA_APP_CLIENT_ID" \
            --cognito-endpoint "$INKRA_COGNITO_URL" --endpoint-timeout "$PATIENCE" "$@"
        """#

    static func replayUnderExec(
        payload: String, wrongExpectation: Bool = false, extra: [String] = [], session: String = session
    ) async throws -> ProcessResult {
        let directory = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try writeEvents(payload: payload, in: directory, wrongExpectation: wrongExpectation)
        return try await runEmulator(
            [
                "exec", "--payload", payload, "--stage", "prod", "--no-access-log", "--no-console", "--no-throttle",
                "--", "/usr/bin/env", "PATIENCE=\(Int(Patience.seconds))", "sh", "-c", session, "session",
                Repository.emulatorBinary.path, "smoke",
            ] + extra, directory: directory)
    }

    @Test(
        "REST and HTTP API: the signed-in user's GET /usage is 200 as expected, no token 401, the rest not checkable",
        arguments: ["v1", "v2"])
    func passes(payload: String) async throws {
        let result = try await Self.replayUnderExec(payload: payload)
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("✓ smoke/checkUsage/01-usage.json  checkUsage  200") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("✓ smoke/checkUsage/02-no-token.json  checkUsage  401") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("– smoke/checkUsage/03-refused-token.json") }, "\(lines)")
        #expect(
            lines.contains(
                "    not checkable against an endpoint: it expects its recorded token to be refused (401), "
                    + "and requests carry the test user's valid token"))
        #expect(lines.contains { $0.hasPrefix("– smoke/authorizer/01-token.json") }, "\(lines)")
        #expect(
            lines.last?.hasPrefix("4 events: 2 passed, 0 failed, 2 not checkable against an endpoint in ") == true,
            "\(lines)")
        // Neither the test user's token nor the recorded one is printed.
        #expect(!result.standardOutput.contains("eyJ") && !result.standardError.contains("eyJ"))
        #expect(!result.standardOutput.contains("never-sent"))
    }

    @Test("--json: one object per event; a wrong expectation fails with its mismatch, exit 1")
    func mismatch() async throws {
        let result = try await Self.replayUnderExec(payload: "v1", wrongExpectation: true, extra: ["--json"])
        #expect(result.status == 1, "\(result.standardOutput)\n\(result.standardError)")
        let objects = try result.standardOutput.split(separator: "\n").map { try JSONParser.parse(Array($0.utf8)) }
        let usage = try #require(objects.first { $0["file"]?.string == "smoke/checkUsage/01-usage.json" })
        #expect(usage["ok"] == false)
        #expect(usage["statusCode"] == 200)
        #expect(usage["mismatches"] == ["body.used: expected 7, got 0"])
        let skipped = try #require(objects.first { $0["file"]?.string == "smoke/authorizer/01-token.json" })
        #expect(skipped["ok"] == true && skipped["skipped"]?.string?.contains("authorizer event") == true)
    }

    @Test(
        "--user signs in where exec points the SDKs: AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER, else AWS_ENDPOINT_URL",
        arguments: [
            "",
            #"export AWS_ENDPOINT_URL="$AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER"; "#
                + "unset AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER; ",
        ])
    func endpointFromEnvironment(setting: String) async throws {
        let flag = #"--cognito-endpoint "$INKRA_COGNITO_URL" "#
        #expect(Self.session.contains(flag))
        let session = setting + Self.session.replacingOccurrences(of: flag, with: "")
        let result = try await Self.replayUnderExec(payload: "v1", session: session)
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("✓ smoke/checkUsage/01-usage.json  checkUsage  200") }, "\(lines)")
    }

    @Test("A wrong password: exit non-zero naming Cognito's NotAuthorizedException, nothing replayed")
    func wrongPassword() async throws {
        let directory = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let events = try Self.writeEvents(payload: "v1", in: directory)
        let result = try await runEmulator([
            "exec", "--no-access-log", "--no-console", "--", "sh", "-c",
            #"INKRA_PASSWORD=Wrong-horse-9 "$0" replay endpoint "$INKRA_API_URL" "$1" --user nobody@example.com "#
                + #"--user-pool-id "$INKRA_USER_POOL_ID" --client-id "$INKRA_APP_CLIENT_ID" --cognito-endpoint "$INKRA_COGNITO_URL" "#
                + "--endpoint-timeout \(Int(Patience.seconds))",
            Repository.emulatorBinary.path, events.path,
        ])
        #expect(result.status != 0)
        #expect(result.standardOutput.isEmpty)
        #expect(
            result.standardError.contains(
                "cannot sign the --user in: RespondToAuthChallenge at http://127.0.0.1:"),
            "\(result.standardError)")
        #expect(result.standardError.contains("answered 400: NotAuthorizedException: Incorrect username or password."))
        #expect(!result.standardError.contains("Wrong-horse-9") && !result.standardError.contains("nobody@example.com"))
    }

    @Test("An endpoint that answers 500 every time: the run stops after --storm-limit answers, exit 3, saying why")
    func storm() async throws {
        let server = try await StubHTTPServer { _ in .json(500, #"{"message":"Internal server error"}"#) }
        defer { server.shutdown() }
        let directory = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = directory.appendingPathComponent("checkUsage")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in 1...10 {
            try Data(Self.restEvent("/usage", headers: ["Accept": "application/json"]).jsonString.utf8).write(
                to: folder.appendingPathComponent(String(format: "%02d.json", index)))
        }
        let result = try await runEmulator([
            "replay", "endpoint", "http://127.0.0.1:\(server.port)/prod", folder.path, "--storm-limit", "3",
        ])
        #expect(result.status == 3, "\(result.standardOutput)\n\(result.standardError)")
        #expect(server.requests.count == 3)
        #expect(server.requests.first?.uri == "/prod/usage")
        #expect(
            result.standardError.contains(
                "replay: stopped after 3 answers in a row of 5xx or none from http://127.0.0.1:\(server.port)/prod"))
        // Three events sent, then the run stopped (an answer the busy test process gave late counts
        // as none, and as a failed event, so only the count is fixed).
        #expect(result.standardOutput.contains("\n3 events: "), "\(result.standardOutput)")
    }

    @Test("--token with --user, or --user without --user-pool-id, is refused naming the flags")
    func flagErrors() async throws {
        let both = try await runEmulator([
            "replay", "endpoint", "http://127.0.0.1:1", "events", "--token", "t", "--user", "u",
        ])
        #expect(both.status == 2)
        #expect(both.standardError.contains("give one of --token, --token-file and --user"))
        let noPool = try await runEmulator(["replay", "endpoint", "http://127.0.0.1:1", "events", "--user", "u"])
        #expect(noPool.status == 2)
        #expect(noPool.standardError.contains("--user needs --user-pool-id and one --client-id"))
        let noEndpoint = try await runEmulator(["replay", "events", "--token", "t"])
        #expect(noEndpoint.standardError.contains("Unknown option '--token'"), "\(noEndpoint.standardError)")
    }
}
