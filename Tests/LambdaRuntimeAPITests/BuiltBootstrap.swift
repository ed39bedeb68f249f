import EmulatorKit
import EmulatorServer
import Foundation
import InkraJSON
import InkraTestSupport

/// The built `bootstrap`, run once through a local Runtime API as one function with some
/// settings: what the tests that start the real binary share.
enum BuiltBootstrap {
    /// Starts bootstrap as `function` on the in-memory store with `settings` (and none of the
    /// test run's own `INKRA_*` variables), hands it `event`, and returns its outcome (or its init
    /// failure) with what it printed.
    static func invoke(
        _ function: String, _ settings: [String: String], event: JSONValue, timeout: TimeInterval = 60
    ) async throws -> (RuntimeOutcome, ProcessResult) {
        let server = try await RuntimeAPIServer(functionName: function, clock: { Date() })
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("INKRA_") }
        environment["AWS_LAMBDA_RUNTIME_API"] = server.address
        environment["AWS_LAMBDA_FUNCTION_NAME"] = function
        environment["_HANDLER"] = function
        environment["INKRA_STORE"] = "memory"
        for (name, value) in settings { environment[name] = value }
        let runtime = Task { try await ChildProcess.run(ChildProcess.built("bootstrap"), [], environment: environment) }
        let outcome = await server.invoke(event.jsonBytes, timeout: timeout)
        await server.shutdown()
        return (outcome, try await runtime.value)
    }

    /// Starts bootstrap as `function` with `settings`, as ``invoke(_:_:event:timeout:)`` does, and
    /// lets `session` hand one warm sandbox several events; returns what it printed.
    static func session(
        _ function: String, _ settings: [String: String], timeout: TimeInterval = 60,
        _ session: (_ invoke: (JSONValue) async -> RuntimeOutcome) async throws -> Void
    ) async throws -> ProcessResult {
        let server = try await RuntimeAPIServer(functionName: function, clock: { Date() })
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("INKRA_") }
        environment["AWS_LAMBDA_RUNTIME_API"] = server.address
        environment["AWS_LAMBDA_FUNCTION_NAME"] = function
        environment["_HANDLER"] = function
        environment["INKRA_STORE"] = "memory"
        for (name, value) in settings { environment[name] = value }
        let runtime = Task { try await ChildProcess.run(ChildProcess.built("bootstrap"), [], environment: environment) }
        do {
            try await session { await server.invoke($0.jsonBytes, timeout: timeout) }
        } catch {
            await server.shutdown()
            _ = try? await runtime.value
            throw error
        }
        await server.shutdown()
        return try await runtime.value
    }
}
