import EmulatorKit
import EmulatorServer
import Foundation
import InkraJSON
import InkraTestSupport
import InkraTime
import InkraUsage

/// The built `bootstrap`, run once through a local Runtime API as one function with some
/// settings: what the tests that start the real binary share.
enum BuiltBootstrap {
    /// Starts bootstrap as `function` on the in-memory store with `settings` (and none of the
    /// test run's own `INKRA_*` variables), hands it `event`, and returns its outcome (or its init
    /// failure) with what it printed.
    static func invoke(
        _ function: String, _ settings: [String: String], event: JSONValue, timeout: TimeInterval = Patience.seconds
    ) async throws -> (RuntimeOutcome, ProcessResult) {
        var outcome = RuntimeOutcome.timedOut(timeout)
        let printed = try await session(function, settings, timeout: timeout) { outcome = await $0(event) }
        return (outcome, printed)
    }

    /// ``invoke(_:_:event:timeout:)`` as Lambda invokes: when Init fails because a start-up read (the
    /// limits parameter, a secret) did not answer in time, Lambda runs Init again at the next
    /// invocation ("Understanding the Lambda execution environment lifecycle", Init phase:
    /// docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html), so this runs it once
    /// more. Any other outcome, and a second such failure, is returned as it came. For the tests
    /// whose service is moto on a machine the whole suite shares: a starved moto can miss the
    /// runtime's 5 s budget for a read, which no timer in the test can wait out.
    static func invokeAsLambda(
        _ function: String, _ settings: [String: String], event: JSONValue
    ) async throws -> (RuntimeOutcome, ProcessResult) {
        let first = try await invoke(function, settings, event: event)
        guard case .initializationFailed(_, let body) = first.0,
            String(decoding: body, as: UTF8.self).contains("did not answer within")
        else { return first }
        return try await invoke(function, settings, event: event)
    }

    /// The environment bootstrap runs with as `function`, polling the Runtime API at `address`: this
    /// process's, less its `INKRA_*` variables, with the in-memory store unless `settings` say
    /// otherwise.
    static func environment(
        _ function: String, runtimeAPI address: String, _ settings: [String: String]
    ) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("INKRA_") }
        environment["AWS_LAMBDA_RUNTIME_API"] = address
        environment["AWS_LAMBDA_FUNCTION_NAME"] = function
        environment["_HANDLER"] = function
        environment["INKRA_STORE"] = "memory"
        environment["INKRA_SERVER_SECRET"] = ServerSecret.developmentText
        for (name, value) in settings { environment[name] = value }
        return environment
    }

    /// Starts bootstrap as `function` with `settings`, as ``invoke(_:_:event:timeout:)`` does, and
    /// lets `session` hand one warm sandbox several events; returns what it printed.
    static func session(
        _ function: String, _ settings: [String: String], timeout: TimeInterval = Patience.seconds,
        _ session: (_ invoke: (JSONValue) async -> RuntimeOutcome) async throws -> Void
    ) async throws -> ProcessResult {
        try await byteSession(function, settings, timeout: timeout) { send in
            try await session { await send($0.jsonBytes) }
        }
    }

    /// ``session(_:_:timeout:_:)`` handing bootstrap events as bytes, which need not be JSON.
    static func byteSession(
        _ function: String, _ settings: [String: String], timeout: TimeInterval = Patience.seconds,
        _ session: (_ invoke: @escaping ([UInt8]) async -> RuntimeOutcome) async throws -> Void
    ) async throws -> ProcessResult {
        let server = try await RuntimeAPIServer(functionName: function, clock: { Timestamp.now })
        let environment = environment(function, runtimeAPI: server.address, settings)
        let runtime = Task { try await ChildProcess.run(ChildProcess.built("bootstrap"), [], environment: environment) }
        do {
            try await session { await server.invoke($0, timeout: timeout) }
        } catch {
            await server.shutdown()
            _ = try? await runtime.value
            throw error
        }
        await server.shutdown()
        return try await runtime.value
    }
}
