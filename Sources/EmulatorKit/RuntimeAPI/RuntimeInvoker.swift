import Foundation
import InkraHandlers
import InkraJSON
import InkraTime
import InkraTracing

/// Invokes a function running in a real runtime behind the local Runtime API, and reads its
/// answer back as an ``Invocation``.
package struct RuntimeInvoker: Sendable {
    /// The Runtime API the runtime polls.
    package let server: any RuntimeAPIEndpoint
    /// The invocation timeout, as the function's configured timeout.
    package let timeout: TimeInterval

    /// Where the runtime's segment documents arrive; with one, every invocation is sampled and its
    /// ``Invocation/trace`` holds what the runtime sent.
    package let traces: (any TraceSource)?
    /// The clock of the trace ids' time, given with ``traces``.
    let now: @Sendable () -> Timestamp

    /// An invoker over a server.
    /// - Parameters:
    ///   - server: the Runtime API the runtime polls.
    ///   - timeout: the function's timeout, in seconds.
    ///   - traces: where the runtime's segments arrive; `nil`: invocations are not sampled.
    ///   - now: the clock of the trace ids' time.
    package init(
        server: any RuntimeAPIEndpoint, timeout: TimeInterval = 3, traces: (any TraceSource)? = nil,
        now: @escaping @Sendable () -> Timestamp = { Timestamp(timeIntervalSince1970: 0) }
    ) {
        self.server = server
        self.timeout = timeout
        self.traces = traces
        self.now = now
    }

    /// A new sampled trace header, as Lambda sends one with active tracing: a root of the current
    /// time and 96 random bits, and the function segment's id as the parent.
    package static func sampledTraceHeader(at time: Timestamp) -> (header: String, root: String) {
        let seconds = String(UInt64(max(0, time.timeIntervalSince1970)), radix: 16)
        let root =
            "1-\(String(repeating: "0", count: max(0, 8 - seconds.count)))\(seconds)-"
            + TraceRecorder.randomID().suffix(8) + TraceRecorder.randomID()
        return ("Root=\(root);Parent=\(TraceRecorder.randomID());Sampled=1", root)
    }

    /// Runs one event. An event that carries no request time of its own (an authorizer's TOKEN
    /// event, a scheduled event) gets its recorded time where API Gateway puts a request's,
    /// `requestContext.requestTimeEpoch` (milliseconds), which a runtime started with
    /// `INKRA_CLOCK=request-time` reads: the runtime reads API Gateway's fields only.
    package func invoke(_ event: JSONValue, recordedAt time: Timestamp? = nil) async -> Invocation {
        var payload = event
        if let time, RequestTime.received(in: event) == nil, payload.object != nil {
            let milliseconds = Int((time.timeIntervalSince1970 * 1000).rounded())
            payload.set(.number(milliseconds), at: ["requestContext", "requestTimeEpoch"])
        }
        guard let traces else { return Self.invocation(await server.invoke(payload.jsonBytes, timeout: timeout)) }
        let (header, root) = Self.sampledTraceHeader(at: now())
        let outcome = await server.invoke(payload.jsonBytes, timeout: timeout, traceHeader: header)
        var invocation = Self.invocation(outcome)
        // A runtime that ran the invocation sends its document before it answers, and the datagram
        // may still be on its way; one that failed to start, timed out or ended sent none.
        let ran: Bool
        switch outcome {
        case .response, .error: ran = true
        default: ran = false
        }
        invocation.trace = await traces.document(forTrace: root, within: ran ? .seconds(2) : .zero)
        return invocation
    }

    /// A runtime's outcome as an invocation.
    static func invocation(_ outcome: RuntimeOutcome) -> Invocation {
        func failure(_ type: String, _ message: String) -> Invocation {
            Invocation(outcome: .failure(FunctionError(errorType: type, errorMessage: message)))
        }
        switch outcome {
        case .response(let body):
            guard let json = try? JSONParser.parse(body) else {
                return failure("Runtime.InvalidResponse", "the runtime answered invalid JSON")
            }
            return Invocation(outcome: .success(json))
        case .error(let type, let body), .initializationFailed(let type, let body):
            let json = try? JSONParser.parse(body)
            return failure(
                json?["errorType"]?.string ?? type,
                json?["errorMessage"]?.string ?? String(decoding: body, as: UTF8.self))
        case .timedOut(let seconds):
            return failure("Sandbox.Timedout", String(format: "Task timed out after %.2f seconds", seconds))
        case .runtimeExited(let reason):
            return failure("Runtime.ExitError", reason)
        }
    }
}
