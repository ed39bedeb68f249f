import EmulatorKit
import EmulatorServer
import Foundation
import InkraJSON
import InkraTestSupport
import InkraTime
import InkraUsage
import Testing

/// The packaged runtime's deadline and fail-closed start, through the Runtime API as Lambda drives
/// it (the built `bootstrap` executable, a local Runtime API, and a model endpoint on loopback).
@Suite("bootstrap: one deadline, and no local defaults inside Lambda")
struct BootstrapDeadlineTests {
    @Test("Inside Lambda, a function without INKRA_STORE fails its init, naming the setting")
    func storeRequiredInLambda() async throws {
        let server = try await RuntimeAPIServer(functionName: "generateQuestions", clock: { Timestamp.now })
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("INKRA_") }
        environment["AWS_LAMBDA_RUNTIME_API"] = server.address
        environment["AWS_LAMBDA_FUNCTION_NAME"] = "generateQuestions"
        environment["_HANDLER"] = "generateQuestions"
        environment["INKRA_STORE"] = nil
        let status = try await ChildProcess.run(ChildProcess.built("bootstrap"), [], environment: environment).status
        #expect(status != 0)
        guard case .initializationFailed(_, let body)? = await server.queue.initializationFailure else {
            Issue.record("bootstrap started without INKRA_STORE inside Lambda")
            await server.shutdown()
            return
        }
        #expect(try JSONParser.parse(body)["errorMessage"]?.string?.contains("INKRA_STORE") == true)
        await server.shutdown()
    }

    @Test(
        "Inside Lambda, a function with a store and no server secret (or a short one) fails its init, naming it",
        arguments: [
            ("checkUsage", nil, "INKRA_SERVER_SECRET_ARN is required inside Lambda"),
            ("deleteAccount", "too short", "INKRA_SERVER_SECRET must hold at least 32 bytes"),
        ] as [(String, String?, String)])
    func serverSecretRequiredInLambda(function: String, secret: String?, message: String) async throws {
        let server = try await RuntimeAPIServer(functionName: function, clock: { Timestamp.now })
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("INKRA_") }
        environment["AWS_LAMBDA_RUNTIME_API"] = server.address
        environment["AWS_LAMBDA_FUNCTION_NAME"] = function
        environment["_HANDLER"] = function
        environment["INKRA_STORE"] = "memory"
        environment["INKRA_DELETE_COGNITO_USER"] = "false"
        environment["INKRA_SERVER_SECRET"] = secret
        let status = try await ChildProcess.run(ChildProcess.built("bootstrap"), [], environment: environment).status
        #expect(status != 0)
        guard case .initializationFailed(_, let body)? = await server.queue.initializationFailure else {
            Issue.record("\(function) started inside Lambda with the public development secret")
            await server.shutdown()
            return
        }
        let text = try JSONParser.parse(body)["errorMessage"]?.string ?? ""
        #expect(text.contains(message), "\(text)")
        await server.shutdown()
    }

    @Test("A model slower than the deadline: 503 with Retry-After before Lambda's deadline, and the unit back")
    func slowModel() async throws {
        // A topic that says "slow" is held until the test is over, past the invocation's deadline;
        // any other is answered at once.
        let held = Gate()
        let model = try await StubHTTPServer { request in
            if String(decoding: request.body, as: UTF8.self).contains("slow") {
                await held.wait()
            }
            let content = (1...3).map { "Question number \($0) about it?" }.joined(separator: "\n")
            let reply: JSONValue = ["choices": [["message": ["content": .string(content)]]]]
            return .json(200, reply.jsonString)
        }
        defer {
            held.open()
            model.shutdown()
        }
        let server = try await RuntimeAPIServer(functionName: "generateQuestions", clock: { Timestamp.now })
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("INKRA_") }
        environment["AWS_LAMBDA_RUNTIME_API"] = server.address
        environment["AWS_LAMBDA_FUNCTION_NAME"] = "generateQuestions"
        environment["_HANDLER"] = "generateQuestions"
        environment["INKRA_STORE"] = "memory"
        environment["INKRA_SERVER_SECRET"] = ServerSecret.developmentText
        environment["INKRA_LLM_BASE_URL"] = "http://127.0.0.1:\(model.port)/v1"
        environment["INKRA_LLM_MODEL"] = "test-model"
        let runtime = Task { try await ChildProcess.run(ChildProcess.built("bootstrap"), [], environment: environment) }
        let event = try Data(
            contentsOf: ChildProcess.repositoryRoot.appendingPathComponent(
                "events/generateQuestions/01-rest-free-user.json"))
        var request = try JSONParser.parse(Array(event))
        // What API Gateway passes on from the authorizer's Allow.
        request.set(["principalId": "u1", "userId": "u1", "tier": "free"], at: ["requestContext", "authorizer"])
        func invoke(topic: String, timeout: TimeInterval) async throws -> JSONValue? {
            request.set(.string(#"{"topic":"\#(topic)","count":3}"#), at: ["body"])
            guard case .response(let bytes) = await server.invoke(request.jsonBytes, timeout: timeout) else {
                return nil
            }
            return try JSONParser.parse(bytes)
        }
        func used(_ response: JSONValue?) throws -> JSONValue? {
            try JSONParser.parse(response?["body"]?.string ?? "null")["usage"]?["used"]
        }

        // A first call starts the runtime (the deadline below is then the only clock that matters).
        #expect(try used(try await invoke(topic: "a warm start", timeout: 60)) == 1)
        // A response (not a time-out) is the proof that it answered before Lambda's deadline.
        let late = try await invoke(topic: "a slow model", timeout: 5)
        #expect(late?["statusCode"] == 503, "\(late?.jsonString ?? "no response before the deadline")")
        #expect(late?["headers"]?["Retry-After"] == "2")
        #expect(try JSONParser.parse(late?["body"]?.string ?? "null")["code"] == "unavailable")
        // The unit was given back: the next call is the month's second, not its third.
        let after = try await invoke(topic: "a quick model", timeout: 60)
        await server.shutdown()
        let log = try await runtime.value.standardError  // the runtime ends once its Runtime API is gone
        #expect(after?["statusCode"] == 200, "\(after?.jsonString ?? "no response")\n\(log)")
        #expect(try used(after) == 2)
    }
}

/// A thread-safe call counter for a stub's responder.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func next() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}
