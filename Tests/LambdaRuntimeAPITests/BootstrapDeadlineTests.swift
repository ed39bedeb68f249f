import EmulatorKit
import Foundation
import InkraJSON
import InkraTestSupport
import Testing

/// The packaged runtime's deadline and fail-closed start, through the Runtime API as Lambda drives
/// it (the built `bootstrap` executable, a local Runtime API, and a model endpoint on loopback).
@Suite("bootstrap: one deadline, and no local defaults inside Lambda")
struct BootstrapDeadlineTests {
    @Test("Inside Lambda, a function without INKRA_STORE fails its init, naming the setting")
    func storeRequiredInLambda() async throws {
        let server = try await RuntimeAPIServer(functionName: "generateQuestions", clock: { Date() })
        var environment = ProcessInfo.processInfo.environment
        environment["AWS_LAMBDA_RUNTIME_API"] = server.address
        environment["AWS_LAMBDA_FUNCTION_NAME"] = "generateQuestions"
        environment["_HANDLER"] = "generateQuestions"
        environment["INKRA_STORE"] = nil
        let status = try await ChildProcess.run(ChildProcess.built("bootstrap"), [], environment: environment).status
        #expect(status != 0)
        guard case .initializationFailed(_, let body)? = await server.initializationFailure else {
            Issue.record("bootstrap started without INKRA_STORE inside Lambda")
            await server.shutdown()
            return
        }
        #expect(try JSONParser.parse(body)["errorMessage"]?.string?.contains("INKRA_STORE") == true)
        await server.shutdown()
    }

    @Test("A model slower than the deadline: 503 with Retry-After before Lambda's deadline, and the unit back")
    func slowModel() async throws {
        let calls = Counter()
        let model = try StubHTTPServer { _ in
            // The first call outlives the invocation's deadline; the next answers at once.
            if calls.next() == 1 { try? await Task.sleep(for: .seconds(20)) }
            let content = (1...3).map { "Question number \($0) about it?" }.joined(separator: "\n")
            let reply: JSONValue = ["choices": [["message": ["content": .string(content)]]]]
            return .json(200, reply.jsonString)
        }
        defer { model.shutdown() }
        let server = try await RuntimeAPIServer(functionName: "generateQuestions", clock: { Date() })
        var environment = ProcessInfo.processInfo.environment
        environment["AWS_LAMBDA_RUNTIME_API"] = server.address
        environment["AWS_LAMBDA_FUNCTION_NAME"] = "generateQuestions"
        environment["_HANDLER"] = "generateQuestions"
        environment["INKRA_STORE"] = "memory"
        environment["INKRA_LLM_BASE_URL"] = "http://127.0.0.1:\(model.port)/v1"
        environment["INKRA_LLM_MODEL"] = "test-model"
        let runtime = Task { try await ChildProcess.run(ChildProcess.built("bootstrap"), [], environment: environment) }
        let event = try Data(
            contentsOf: ChildProcess.repositoryRoot.appendingPathComponent(
                "events/generateQuestions/01-rest-free-user.json"))
        var request = try JSONParser.parse(Array(event))
        request.set(.string(#"{"topic":"a slow model","count":3}"#), at: ["body"])
        // What API Gateway passes on from the authorizer's Allow.
        request.set(["principalId": "u1", "userId": "u1", "tier": "free"], at: ["requestContext", "authorizer"])

        // `.response` (not `.timedOut`) is the proof that it answered before Lambda's deadline.
        let first = await server.invoke(request.jsonBytes, timeout: 4)
        guard case .response(let bytes) = first else {
            Issue.record("expected a response before Lambda's deadline, got \(first)")
            await server.shutdown()
            return
        }
        let response = try JSONParser.parse(bytes)
        #expect(response["statusCode"] == 503)
        #expect(response["headers"]?["Retry-After"] == "2")
        #expect(try JSONParser.parse(response["body"]?.string ?? "")["code"] == "unavailable")

        // The unit was given back: the next call is the month's first.
        guard case .response(let again) = await server.invoke(request.jsonBytes, timeout: 10) else {
            Issue.record("the second invocation got no response")
            await server.shutdown()
            return
        }
        let second = try JSONParser.parse(again)
        await server.shutdown()
        let log = try await runtime.value.standardError  // the runtime ends once its Runtime API is gone
        #expect(second["statusCode"] == 200, "\(second.jsonString)\n\(log)\nmodel calls: \(model.requests.count)")
        #expect(try JSONParser.parse(second["body"]?.string ?? "")["usage"]?["used"] == 1)

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
