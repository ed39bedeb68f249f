import Foundation
import InkraJSON
import InkraTestSupport
import InkraTime
import InkraUsage
import LambdaRuntimeAPI
import Synchronization
import Testing

/// A Runtime API over a real socket that answers as the documentation says it may: each `/next`
/// hands out the next scripted event (and 500 once there are none left), and each `POST` is
/// answered with its scripted status (202 unless told otherwise).
///
/// The statuses follow AWS's "Using the Lambda runtime API for custom runtimes"
/// (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html): `/response` may answer 202,
/// 400 Bad Request, 403 Forbidden, 413 Payload Too Large or 500 "Container error. Non-recoverable
/// state. Runtime should exit promptly."; `/error` 202, 400, 403 or 500.
final class ScriptedRuntimeAPI: Sendable {
    /// The invocations still to hand out.
    final class Queue: Sendable {
        private let events: Mutex<[(id: String, body: String)]>
        init(_ events: [(id: String, body: String)]) { self.events = Mutex(events) }
        func next() -> (id: String, body: String)? { events.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
    }

    let server: StubHTTPServer

    /// - Parameters:
    ///   - events: the invocations `/next` hands out, in order.
    ///   - answers: the status of a `POST` by the end of its path (`r1/response`, `r1/error`).
    init(events: [(id: String, body: String)], answers: [String: Int] = [:]) async throws {
        let queue = Queue(events)
        server = try await StubHTTPServer { request in
            if request.method == "GET" {
                guard let event = queue.next() else {
                    return .json(
                        500, #"{"errorMessage":"State transition error","errorType":"InvalidStateTransition"}"#)
                }
                let deadline = Int((Timestamp.now.timeIntervalSince1970 + 60) * 1000)
                return StubHTTPServer.Answer(
                    status: 200,
                    headers: [
                        ("Lambda-Runtime-Aws-Request-Id", event.id), ("Lambda-Runtime-Deadline-Ms", "\(deadline)"),
                        ("Content-Type", "application/json"),
                    ],
                    body: event.body)
            }
            let key = request.uri.split(separator: "/").suffix(2).joined(separator: "/")
            switch answers[key] ?? 202 {
            case 202: return .json(202, #"{"status":"OK"}"#)
            case 413:
                return .json(
                    413,
                    #"{"errorMessage":"Exceeded maximum allowed payload size (6291556 bytes).","errorType":"RequestEntityTooLarge"}"#
                )
            case let status:
                return .json(status, #"{"errorMessage":"refused","errorType":"InvalidRequestID"}"#)
            }
        }
    }

    var address: String { "127.0.0.1:\(server.port)" }

    /// Each request as `METHOD /path` without the API version.
    var calls: [String] {
        server.requests.map {
            "\($0.method) \($0.uri.replacingOccurrences(of: "/2018-06-01/runtime/invocation/", with: ""))"
        }
    }

    /// The body of the first request to a path's end (`r1/error`).
    func body(of key: String) -> [UInt8]? {
        server.requests.first { $0.uri.hasSuffix("/" + key) }?.body
    }

    /// A header of the first request to a path's end.
    func header(_ name: String, of key: String) -> String? {
        server.requests.first { $0.uri.hasSuffix("/" + key) }?.headers.first { $0.0.lowercased() == name.lowercased() }?
            .1
    }
}

/// What the loop logged.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// An event whose content must never reach the log.
let secretEvent = #"{"note":"do-not-log-this-event"}"#

// The loop under the Runtime API's documented refusals: a 4xx ends one invocation, a 500 ends the
// runtime ("Using the Lambda runtime API for custom runtimes",
// https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html). In RuntimeLoopTests, whose
// tests run one at a time, one loop per process as in a Lambda sandbox.
extension RuntimeLoopTests {
    @Test(
        "A response refused with 413, 400 or 403 fails its invocation through /error, and the next one is served",
        arguments: [413, 400, 403])
    func refusedResponse(status: Int) async throws {
        let api = try await ScriptedRuntimeAPI(
            events: [("r1", secretEvent), ("r2", #"{"n":2}"#)], answers: ["r1/response": status])
        defer { api.server.shutdown() }
        let log = LogLines()
        let loop = RuntimeLoop(client: try RuntimeClient(address: api.address, now: { Timestamp.now }), log: log.add)
        try await loop.run(limit: 2) { _, event in event }

        #expect(api.calls == ["GET next", "POST r1/response", "POST r1/error", "GET next", "POST r2/response"])
        #expect(api.body(of: "r2/response") == Array(#"{"n":2}"#.utf8))
        let report = try JSONParser.parse(try #require(api.body(of: "r1/error")))
        let type = status == 413 ? "Runtime.ResponseTooLarge" : "Runtime.ResponseRefused"
        #expect(report["errorType"]?.string == type)
        #expect(api.header("Lambda-Runtime-Function-Error-Type", of: "r1/error") == type)
        let message = try #require(report["errorMessage"]?.string)
        #expect(message.contains("\(secretEvent.utf8.count) bytes"), "\(message)")
        #expect(message.contains("HTTP \(status)"), "\(message)")
        #expect(log.all.contains { $0.contains("r1") && $0.contains("HTTP \(status)") }, "\(log.all)")
        #expect(!log.all.joined().contains("do-not-log-this-event"))
        #expect(!message.contains("do-not-log-this-event"))
    }

    @Test(
        "An error report refused with 400 or 403 is logged, and the next invocation is served", arguments: [400, 403])
    func refusedErrorReport(status: Int) async throws {
        let api = try await ScriptedRuntimeAPI(
            events: [("r1", secretEvent), ("r2", #"{"n":2}"#)], answers: ["r1/error": status])
        defer { api.server.shutdown() }
        let log = LogLines()
        let loop = RuntimeLoop(client: try RuntimeClient(address: api.address, now: { Timestamp.now }), log: log.add)
        try await loop.run(limit: 2) { _, event in
            if event == Array(secretEvent.utf8) {
                throw InvocationFailure(errorType: "Handler.Broken", errorMessage: "it broke")
            }
            return event
        }
        #expect(api.calls == ["GET next", "POST r1/error", "GET next", "POST r2/response"])
        #expect(api.body(of: "r2/response") == Array(#"{"n":2}"#.utf8))
        #expect(log.all.contains { $0.contains("r1") && $0.contains("HTTP \(status)") }, "\(log.all)")
        #expect(!log.all.joined().contains("do-not-log-this-event"))
    }

    @Test(
        "A 500 from /response or /error ends the loop with the error, and nothing more is asked",
        arguments: ["response", "error"])
    func containerError(call: String) async throws {
        let api = try await ScriptedRuntimeAPI(
            events: [("r1", secretEvent), ("r2", #"{"n":2}"#)], answers: ["r1/\(call)": 500])
        defer { api.server.shutdown() }
        let loop = RuntimeLoop(client: try RuntimeClient(address: api.address, now: { Timestamp.now }))
        let error = await #expect(throws: RuntimeAPIError.self) {
            try await loop.run(limit: 2) { _, event in
                if call == "error" { throw InvocationFailure(errorType: "Handler.Broken", errorMessage: "it broke") }
                return event
            }
        }
        guard let error, error.code == .status, error.status == 500 else {
            Issue.record("expected the 500, got \(String(describing: error))")
            return
        }
        #expect(api.calls == ["GET next", "POST r1/\(call)"])
    }

}

/// The built `bootstrap` under the Runtime API's documented refusals ("Using the Lambda runtime API
/// for custom runtimes", https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html).
@Suite("bootstrap under the Runtime API's refusals, as its documentation lists them")
struct RuntimeAPIRefusalTests {
    @Test("The built bootstrap: a 413 fails that invocation through /error, the next is answered, a 500 ends it")
    func builtBootstrap() async throws {
        let event = try String(
            contentsOf: ChildProcess.repositoryRoot.appendingPathComponent("events/checkUsage/01-rest-new-user.json"),
            encoding: .utf8)
        let api = try await ScriptedRuntimeAPI(events: [("e1", event), ("e2", event)], answers: ["e1/response": 413])
        defer { api.server.shutdown() }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("INKRA_") }
        environment["AWS_LAMBDA_RUNTIME_API"] = api.address
        environment["AWS_LAMBDA_FUNCTION_NAME"] = "checkUsage"
        environment["_HANDLER"] = "checkUsage"
        environment["INKRA_STORE"] = "memory"
        environment["INKRA_SERVER_SECRET"] = ServerSecret.developmentText
        let result = try await ChildProcess.run(ChildProcess.built("bootstrap"), [], environment: environment)

        // The third /next is answered 500, which ends the runtime.
        #expect(result.status != 0)
        #expect(
            api.calls == [
                "GET next", "POST e1/response", "POST e1/error", "GET next", "POST e2/response", "GET next",
            ], "\(result.standardError)")
        let refused = try #require(api.body(of: "e1/response"))
        let report = try JSONParser.parse(try #require(api.body(of: "e1/error")))
        #expect(report["errorType"]?.string == "Runtime.ResponseTooLarge")
        #expect(report["errorMessage"]?.string?.contains("\(refused.count) bytes") == true, "\(report.jsonString)")
        let answered = try JSONParser.parse(try #require(api.body(of: "e2/response")))
        #expect(answered["statusCode"]?.int != nil, "\(answered.jsonString)")
        let log = result.standardError
        #expect(log.contains("e1") && log.contains("HTTP 413"), "\(log)")
        #expect(log.contains("non-recoverable"), "\(log)")
        let token = try #require(try JSONParser.parse(Array(event.utf8))["headers"]?["Authorization"]?.string)
        #expect(!log.contains(token.dropFirst("Bearer ".count)))
        #expect(!log.contains(String(decoding: refused, as: UTF8.self)))
    }
}
