import DynamoDBTable
import EmulatorKit
import EmulatorServer
import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime
import InkraUsage
import SingleTable
import Testing

/// What a recording keeps (docs/configuration.md, `INKRA_RECORD_EVENTS`), read from what the
/// built `bootstrap` wrote and from the table it wrote to (the emulator's DynamoDB endpoint over
/// HTTP): no `Idempotency-Key`, user id, topic, email, token or `X-Device-Id` in any recorded line,
/// and none of them in the table, whose partitions name the user by the same keyed pseudonym the
/// recording holds; the key and the user become keyed pseudonyms, the same in every sandbox, so
/// that the import replays the retry as the retry it was.
@Suite("bootstrap's recordings: an allow-list, with keyed pseudonyms")
struct BootstrapRecordingPrivacyTests {
    static let user = "4f1c2d9e-7a55-4b8e-9d61-private-sub"
    static let email = "someone.private@example.org"
    static let topic = "my father's letters from the front"
    static let device = "device-8c7b1e02-private"
    static let token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJwcml2YXRlIn0.c2lnbmF0dXJlLXByaXZhdGU"
    static let firstKey = "key-first-2b6a9c31-private"
    static let secondKey = "key-second-e04d77f5-private"

    /// A REST event as API Gateway sends it once the authorizer let the caller through.
    static func event(_ method: String, _ path: String, key: String? = nil, body: String? = nil) -> JSONValue {
        var headers: JSONObject = [
            "Authorization": .string("Bearer \(token)"), "X-Device-Id": .string(device),
            "Content-Type": "application/json", "User-Agent": "Inkra/2.0 (iPhone)",
        ]
        if let key { headers["Idempotency-Key"] = .string(key) }
        var multiValue = JSONObject()
        for (name, value) in headers.pairs { multiValue[name] = [value] }
        return [
            "resource": .string(path), "path": .string(path), "httpMethod": .string(method),
            "headers": .object(headers),
            "multiValueHeaders": .object(multiValue),
            "requestContext": [
                "resourcePath": .string(path), "httpMethod": .string(method), "stage": "prod",
                "requestId": .string(UUID().uuidString.lowercased()),
                "authorizer": [
                    "principalId": .string(user), "userId": .string(user), "tier": "free", "email": .string(email),
                ],
            ],
            "body": body.map(JSONValue.string) ?? .null, "isBase64Encoded": false,
        ]
    }

    /// The emulator's DynamoDB endpoint over `table`, on a loopback port.
    static func endpoint(_ table: InMemoryTable) async throws -> StubHTTPServer {
        let dynamoDB = LocalDynamoDB(table: table, now: { Timestamp.now })
        return try await StubHTTPServer { request in
            let target = request.headers.first { $0.0.lowercased() == "x-amz-target" }?.1
            let reply = await dynamoDB.respond(target: target, body: request.body)
            return StubHTTPServer.Answer(
                status: reply.status, headers: reply.headers.map { ($0.name, $0.value) },
                body: String(decoding: reply.body, as: UTF8.self))
        }
    }

    @Test(
        "A recording and the table hold no key, user id, topic, email, token or device id; a retry keeps its key's pseudonym"
    )
    func recordingAndTable() async throws {
        let table = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
        let server = try await Self.endpoint(table)
        defer { server.shutdown() }
        let settings = [
            "INKRA_RECORD_EVENTS": "1", "AWS_LAMBDA_LOG_FORMAT": "JSON", "INKRA_STORE": "dynamodb",
            "AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:\(server.port)", "AWS_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", "INKRA_DELETE_COGNITO_USER": "false",
        ]
        let body = #"{"topic":"\#(Self.topic)","count":3}"#
        // Two sandboxes of generateQuestions (the retry of the first call lands on the second) and
        // one of checkUsage.
        let sessions: [(String, [JSONValue])] = [
            (
                "generateQuestions",
                [
                    Self.event("POST", "/questions", key: Self.firstKey, body: body),
                    Self.event("POST", "/questions", key: Self.secondKey, body: body),
                ]
            ),
            ("generateQuestions", [Self.event("POST", "/questions", key: Self.firstKey, body: body)]),
            ("checkUsage", [Self.event("GET", "/usage")]),
        ]
        var capture: [String] = []
        var answers: [JSONValue] = []
        for (function, events) in sessions {
            let printed = try await BuiltBootstrap.session(function, settings) { invoke in
                for event in events {
                    guard case .response(let bytes) = await invoke(event) else {
                        Issue.record("\(function) did not answer")
                        continue
                    }
                    answers.append(try JSONParser.parse(bytes))
                }
            }
            capture += (printed.standardOutput + printed.standardError).split(separator: "\n").map(String.init)
        }
        #expect(answers.map { $0["statusCode"]?.int } == [200, 200, 200, 200], "\(answers)")
        #expect(answers[2]["headers"]?["Idempotent-Replayed"] == "true", "the retry is answered from its seal")

        let recorded = capture.filter { $0.contains(RecordingLines.tag) }
        #expect(recorded.count == 4, "\(capture)")
        let secrets = [
            Self.user, Self.email, Self.topic, Self.device, Self.token, Self.firstKey, Self.secondKey, "Inkra/2.0",
        ]
        for line in recorded {
            for secret in secrets { #expect(!line.contains(secret), "a recorded line holds \"\(secret)\": \(line)") }
        }
        let tableText = table.snapshot().map { Wire.item($0).jsonString }.joined(separator: "\n")
        #expect(!tableText.isEmpty)
        // The table names the user by the keyed pseudonym of the id (docs/table.md), the one the
        // recordings hold; it holds none of these.
        for secret in secrets {
            #expect(!tableText.contains(secret), "the table holds \"\(secret)\"")
        }
        #expect(tableText.contains(userPartition(Self.user)), "the user's partition is the id's pseudonym")
        #expect(recorded.joined().contains(userKey(Self.user)), "the recordings name the user alike")

        // The recordings as import reads them: the key and the user are pseudonyms, one per value.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("privacy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("capture.log")
        try Data((capture.joined(separator: "\n") + "\n").utf8).write(to: file)
        var collector = RecordingCollector()
        for message in try LogSource.messages(of: file, named: "capture.log") { collector.add(message) }
        let recordings = collector.recordings.sorted { $0.epochMilliseconds < $1.epochMilliseconds }
        let keys = recordings.map { $0.event?["headers"]?["Idempotency-Key"]?.string }
        #expect(keys[0] != nil && keys[0] == keys[2], "the retry's key has its call's pseudonym: \(keys)")
        #expect(keys[1] != nil && keys[1] != keys[0], "another key has another pseudonym: \(keys)")
        #expect(keys[3] == nil)
        let users = Set(recordings.map { $0.event?["requestContext"]?["authorizer"]?["userId"]?.string })
        #expect(users.count == 1 && users.first! != nil, "one user, one pseudonym in every sandbox: \(users)")
        for recording in recordings {
            let event = try #require(recording.event?.object)
            #expect(
                event["headers"]?.object?.keys.sorted() == ["Authorization", "Content-Type", "Idempotency-Key"]
                    || event["headers"]?.object?.keys.sorted() == ["Authorization", "Content-Type"])
            #expect(event["headers"]?["Authorization"] == "[redacted]")
            #expect(event["requestContext"]?["authorizer"]?.object?.keys.sorted() == ["principalId", "tier", "userId"])
        }

        // Imported and replayed on a fresh table: the retry is a repeat again.
        let writer = ImportWriter(directory: folder.appendingPathComponent("events"))
        for recording in recordings { try writer.write(recording) }
        var options = EmulatorOptions(clock: { Timestamp.now })
        options.developmentKey = try DevelopmentKey(
            directory: ChildProcess.repositoryRoot.appendingPathComponent("emulator/dev-keys"))
        let stack = try await EmulatorStack(options: options)
        let records = await Replayer(stack: stack).replay([writer.directory])
        #expect(records.count == 4)
        for record in records {
            #expect(record.ok && record.checked, "\(record.file): \(record.mismatches) \(record.problem ?? "")")
        }
    }

    @Test("Inside Lambda, the authorizer that records needs the server's secret; without recording it does not")
    func authorizerRecordingNeedsTheSecret() async throws {
        let settings = [
            "COGNITO_USER_POOL_ID": "us-east-1_InkraLocal", "INKRA_COGNITO_ISSUER": "ORIGINAL",
            "INKRA_JWKS_FILE": ChildProcess.repositoryRoot.appendingPathComponent("emulator/dev-keys/dev-jwks.json")
                .path,
            "INKRA_SERVER_SECRET": "",
        ]
        let event: JSONValue = [
            "type": "TOKEN", "authorizationToken": "Bearer not-a-token",
            "methodArn": "arn:aws:execute-api:us-east-1:123456789012:a1b2c3d4e5/prod/GET/usage",
        ]
        let (recording, _) = try await BuiltBootstrap.invoke(
            "authorizer", settings.merging(["INKRA_RECORD_EVENTS": "1"]) { $1 }, event: event, timeout: 30)
        guard case .initializationFailed(_, let body) = recording else {
            Issue.record("the authorizer recorded inside Lambda without the server's secret: \(recording)")
            return
        }
        let message = try JSONParser.parse(body)["errorMessage"]?.string ?? ""
        #expect(message.contains("INKRA_SERVER_SECRET_ARN is required inside Lambda"), "\(message)")

        let (plain, _) = try await BuiltBootstrap.invoke("authorizer", settings, event: event, timeout: 30)
        guard case .error(let type, _) = plain else {
            Issue.record("the authorizer without recording did not answer: \(plain)")
            return
        }
        #expect(type == "Unauthorized", "\(type)")
    }
}
