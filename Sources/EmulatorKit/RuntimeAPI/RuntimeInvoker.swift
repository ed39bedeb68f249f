import Foundation
import InkraHandlers
import InkraJSON

/// Invokes a function running in a real runtime behind the local Runtime API, and reads its
/// answer back as an ``Invocation``.
package struct RuntimeInvoker: Sendable {
    /// The Runtime API the runtime polls.
    package let server: any RuntimeAPIEndpoint
    /// The invocation timeout, as the function's configured timeout.
    package let timeout: TimeInterval

    /// An invoker over a server.
    package init(server: any RuntimeAPIEndpoint, timeout: TimeInterval = 3) {
        self.server = server
        self.timeout = timeout
    }

    /// Runs one event. An event that carries no request time of its own (an authorizer's TOKEN
    /// event) gets its recorded time as `x-inkra-recorded-at`, which a runtime started with
    /// `INKRA_CLOCK=request-time` reads.
    package func invoke(_ event: JSONValue, recordedAt time: Date? = nil) async -> Invocation {
        var payload = event
        if let time, InvocationClock.requestTime(of: event) == nil {
            payload.set(.string(ISO8601.format(time)), at: ["x-inkra-recorded-at"])
        }
        switch await server.invoke(payload.jsonBytes, timeout: timeout) {
        case .response(let body):
            guard let json = try? JSONParser.parse(body) else {
                return Invocation(
                    outcome: .failure(
                        FunctionError(
                            errorType: "Runtime.InvalidResponse", errorMessage: "the runtime answered invalid JSON"))
                )
            }
            return Invocation(outcome: .success(json))
        case .error(let type, let body), .initializationFailed(let type, let body):
            let json = try? JSONParser.parse(body)
            return Invocation(
                outcome: .failure(
                    FunctionError(
                        errorType: json?["errorType"]?.string ?? type,
                        errorMessage: json?["errorMessage"]?.string ?? String(decoding: body, as: UTF8.self)
                    )
                )
            )
        case .timedOut(let seconds):
            return Invocation(
                outcome: .failure(
                    FunctionError(
                        errorType: "Sandbox.Timedout",
                        errorMessage: String(format: "Task timed out after %.2f seconds", seconds))
                )
            )
        case .runtimeExited(let reason):
            return Invocation(outcome: .failure(FunctionError(errorType: "Runtime.ExitError", errorMessage: reason)))
        }
    }
}
