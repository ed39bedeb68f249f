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
    /// event, a scheduled event) gets its recorded time where API Gateway puts a request's,
    /// `requestContext.requestTimeEpoch` (milliseconds), which a runtime started with
    /// `INKRA_CLOCK=request-time` reads: the runtime reads API Gateway's fields only.
    package func invoke(_ event: JSONValue, recordedAt time: Date? = nil) async -> Invocation {
        var payload = event
        if let time, RequestTime.received(in: event) == nil, payload.object != nil {
            let milliseconds = Int((time.timeIntervalSince1970 * 1000).rounded())
            payload.set(.number(milliseconds), at: ["requestContext", "requestTimeEpoch"])
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
