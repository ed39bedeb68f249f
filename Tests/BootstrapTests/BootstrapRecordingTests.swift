import EmulatorKit
import EmulatorServer
import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime
import Testing

/// `INKRA_RECORD_EVENTS=1` on the built `bootstrap` (docs/configuration.md, "Recording traffic"):
/// in Lambda's text and JSON log formats (`AWS_LAMBDA_LOG_FORMAT`, as "Configuring advanced
/// logging controls for Lambda functions" in the Lambda Developer Guide describes them), each
/// invocation writes one tagged line that holds no token, topic, email, address, user id or question, and
/// that `inkra-emulator import` reads back into an event that replays to the same status.
@Suite("bootstrap records its invocations for import, in both log formats")
struct BootstrapRecordingTests {
    static let token =
        "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJyZWMtd3JpdGVyIiwiZW1haWwiOiJwcml2YXRlIn0.c2lnbmF0dXJlLW9mLWEtc2VjcmV0LXRva2Vu"
    static let topic = "the lighthouse keeper's hidden diary"
    static let email = "private.person@example.org"
    static let address = "198.51.100.73"
    static let agent = "PrivateAgent/9.9 (secret-device)"

    /// A REST event as API Gateway sends it to a function after the authorizer allowed it.
    static func event(_ method: String, _ path: String, user: String, body: String?) -> JSONValue {
        [
            "resource": .string(path), "path": .string(path), "httpMethod": .string(method),
            "headers": [
                "Authorization": .string("Bearer \(token)"), "User-Agent": .string(agent),
                "X-Forwarded-For": .string("\(address), 130.176.88.12"), "Content-Type": "application/json",
            ],
            "multiValueHeaders": ["Authorization": [.string("Bearer \(token)")], "User-Agent": [.string(agent)]],
            "requestContext": [
                "resourcePath": .string(path), "httpMethod": .string(method), "stage": "prod",
                "requestId": .string(UUID().uuidString.lowercased()),
                "identity": ["sourceIp": .string(address), "userAgent": .string(agent)],
                "authorizer": [
                    "principalId": .string(user), "userId": .string(user), "tier": "free", "email": .string(email),
                ],
            ],
            "body": body.map(JSONValue.string) ?? .null, "isBase64Encoded": false,
        ]
    }

    /// Runs bootstrap as `function` recording in `format`, hands it `event`, and returns its answer
    /// and every line it wrote (standard output, then standard error).
    static func run(_ function: String, format: String, event: JSONValue) async throws -> (RuntimeOutcome, [String]) {
        let (outcome, result) = try await BuiltBootstrap.invoke(
            function, ["INKRA_RECORD_EVENTS": "1", "AWS_LAMBDA_LOG_FORMAT": format], event: event,
            timeout: Patience.seconds)
        let lines = (result.standardOutput + result.standardError).split(separator: "\n").map(String.init)
        return (outcome, lines)
    }

    static func response(_ outcome: RuntimeOutcome) throws -> JSONValue {
        guard case .response(let bytes) = outcome else {
            Issue.record("no response: \(outcome)")
            return .null
        }
        return try JSONParser.parse(bytes)
    }

    @Test(
        "One tagged line per invocation, no private value in any line, read back by import and replayed alike",
        arguments: ["Text", "JSON"])
    func recordsInFormat(format: String) async throws {
        let usage = Self.event("GET", "/usage", user: "rec-reader", body: nil)
        let questions = Self.event(
            "POST", "/questions", user: "rec-writer", body: #"{"topic":"\#(Self.topic)","count":3}"#)
        var capture: [String] = []
        var statuses: [String: Int] = [:]
        var generated: [String] = []
        for (function, event) in [("checkUsage", usage), ("generateQuestions", questions)] {
            let (outcome, lines) = try await Self.run(function, format: format, event: event)
            let response = try Self.response(outcome)
            statuses[function] = response["statusCode"]?.int
            if function == "generateQuestions" {
                let body = try JSONParser.parse(response["body"]?.string ?? "null")
                generated = body["questions"]?.array?.compactMap(\.string) ?? []
            }
            let tagged = lines.filter { $0.contains(RecordingLines.tag) }
            #expect(tagged.count == 1, "\(function) in \(format): \(lines)")
            for line in tagged {
                if format == "JSON" {
                    let object = try JSONParser.parse(line)
                    #expect(object["logger"] == "inkra.recording", "\(line)")
                    #expect(object["message"]?.string?.hasPrefix("\(RecordingLines.tag) ") == true, "\(line)")
                } else {
                    #expect(line.hasPrefix("\(RecordingLines.tag) "), "\(line)")
                }
            }
            if format == "JSON" {
                for line in lines { #expect((try? JSONParser.parse(line))?.object != nil, "not a JSON line: \(line)") }
            }
            capture += lines
        }
        #expect(statuses == ["checkUsage": 200, "generateQuestions": 200])
        #expect(generated.count == 3)

        let secrets =
            [
                Self.token, "Bearer \(Self.token)", Self.topic, Self.email, Self.address, Self.agent, "rec-reader",
                "rec-writer",
            ]
            + generated
        for line in capture {
            for secret in secrets { #expect(!line.contains(secret), "a line holds \"\(secret)\": \(line)") }
        }

        // inkra-emulator import's reading of a plain capture, then replay of what it wrote.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("capture.log")
        try Data((capture.joined(separator: "\n") + "\n").utf8).write(to: file)
        var collector = RecordingCollector()
        for message in try LogSource.messages(of: file, named: "capture.log") { collector.add(message) }
        #expect(collector.broken.isEmpty && collector.cut.isEmpty, "\(collector.broken)")
        #expect(collector.recordings.map(\.function).sorted() == ["checkUsage", "generateQuestions"])
        let writer = ImportWriter(directory: folder.appendingPathComponent("events"))
        for recording in collector.recordings { try writer.write(recording) }
        var options = EmulatorOptions(clock: { Timestamp.now })
        options.developmentKey = try DevelopmentKey(
            directory: ChildProcess.repositoryRoot.appendingPathComponent("emulator/dev-keys"))
        let stack = try await EmulatorStack(options: options)
        let records = await Replayer(stack: stack).replay([writer.directory])
        #expect(records.count == 2)
        for record in records {
            #expect(record.ok && record.checked, "\(record.file): \(record.mismatches) \(record.problem ?? "")")
            guard case .success(let answer)? = record.invocation?.outcome, let function = record.function else {
                Issue.record("\(record.file) did not run: \(String(describing: record.invocation?.outcome))")
                continue
            }
            #expect(answer["statusCode"]?.int == statuses[function.rawValue], "\(record.file)")
        }
    }
}
