import Dispatch
import InkraTime

#if canImport(Glibc)
    import Glibc
#endif

/// The custom runtime's loop: next invocation → handler → response or error, forever.
///
/// A handler that throws is reported as an invocation error and the loop goes on; a dropped
/// connection is retried with backoff. A response the Runtime API refuses (400, 403, 413) fails its
/// invocation through `/error`, and a refused error report is logged: both end that invocation
/// only. The loop ends when the Runtime API answers 500 ("Non-recoverable state") or stays
/// unreachable.
package struct RuntimeLoop: Sendable {
    /// Handles one event: bytes in, bytes out.
    package typealias Handler = @Sendable (InvocationContext, [UInt8]) async throws -> [UInt8]

    private let client: RuntimeClient
    /// The blocking Runtime API calls run here, off Swift's cooperative thread pool, so a long
    /// poll never starves the handler's tasks.
    private let io = DispatchQueue(label: "inkra.runtime-api")
    private let maximumAttempts: Int
    private let log: @Sendable (String) -> Void

    /// A loop over a Runtime API client.
    /// - Parameters:
    ///   - client: the Runtime API client.
    ///   - maximumAttempts: consecutive connection failures tolerated before giving up.
    ///   - log: where the loop reports what it retries and the calls the Runtime API refused.
    package init(client: RuntimeClient, maximumAttempts: Int = 5, log: @escaping @Sendable (String) -> Void = { _ in })
    {
        self.client = client
        self.maximumAttempts = maximumAttempts
        self.log = log
    }

    /// Runs invocations until `limit` have been handled (forever when `nil`).
    /// - Throws: ``RuntimeAPIError`` when the Runtime API cannot be reached after retries, or
    ///   answers 500 (or a status it does not document).
    package func run(limit: Int? = nil, handler: Handler) async throws {
        var handled = 0
        while limit.map({ handled < $0 }) ?? true {
            // The trace header reaches the handler on its context only. Lambda's custom-runtime guide
            // has a runtime export it as `_X_AMZN_TRACE_ID` for an X-Ray SDK; this process has none
            // (its segments take the header from the context), and glibc keeps every value a
            // `setenv` replaced: ~140 bytes per distinct trace id, for the sandbox's life.
            let (context, event) = try await blocking { try retrying("next invocation") { try client.next() } }
            let outcome: Result<[UInt8], InvocationFailure>
            do {
                outcome = .success(try await handler(context, event))
            } catch let failure as InvocationFailure {
                outcome = .failure(failure)
            } catch {
                outcome = .failure(
                    InvocationFailure(errorType: String(describing: type(of: error)), errorMessage: "\(error)"))
            }
            switch outcome {
            case .success(let body): try await respond(to: context.requestID, with: body)
            case .failure(let failure): try await report(failure, for: context.requestID)
            }
            handled += 1
        }
    }

    /// Posts a result. A refusal of this one invocation (a 4xx: 400, 403, or 413 for a response
    /// larger than the Runtime API takes) fails the invocation through `/error` instead, naming the
    /// status and the response's size, never its content; the loop then goes on.
    /// - Throws: ``RuntimeAPIError`` on a 500 (or any status but 2xx and 4xx) and when the Runtime
    ///   API stays unreachable: the runtime should then exit.
    private func respond(to requestID: String, with body: [UInt8]) async throws {
        do {
            try await blocking { try retrying("response") { try client.respond(to: requestID, with: body) } }
        } catch let error as RuntimeAPIError where Self.refusesOneInvocation(error) {
            let status = error.status ?? 0
            log(
                "the Runtime API refused the response of invocation \(requestID) (\(body.count) bytes) with HTTP "
                    + "\(status); reporting the invocation as failed")
            try await report(Self.refusedResponse(status: status, size: body.count), for: requestID)
        }
    }

    /// Posts a failure. A refusal (400 or 403) is logged and the loop goes on: the invocation is
    /// Lambda's to end.
    /// - Throws: ``RuntimeAPIError`` on a 500 (or any status but 2xx and 4xx) and when the Runtime
    ///   API stays unreachable.
    private func report(_ failure: InvocationFailure, for requestID: String) async throws {
        do {
            try await blocking { try retrying("error report") { try client.fail(requestID, with: failure) } }
        } catch let error as RuntimeAPIError where Self.refusesOneInvocation(error) {
            log(
                "the Runtime API refused the error report of invocation \(requestID) (\(failure.errorType)) with "
                    + "HTTP \(error.status ?? 0); going on to the next invocation")
        }
    }

    /// Whether an error is a status that refuses one call about one invocation (400, 403, 413: the
    /// runtime goes on), rather than saying the environment is broken (500: "Non-recoverable state.
    /// Runtime should exit promptly", and anything the Runtime API does not document).
    static func refusesOneInvocation(_ error: RuntimeAPIError) -> Bool {
        error.code == .status && (400..<500).contains(error.status ?? 0)
    }

    /// The failure reported for a response the Runtime API refused.
    static func refusedResponse(status: Int, size: Int) -> InvocationFailure {
        if status == 413 {
            return InvocationFailure(
                errorType: "Runtime.ResponseTooLarge",
                errorMessage: "the response is \(size) bytes, more than the Runtime API accepts (HTTP 413)")
        }
        return InvocationFailure(
            errorType: "Runtime.ResponseRefused",
            errorMessage: "the Runtime API refused the response (\(size) bytes) with HTTP \(status)")
    }

    /// Reports a start-up failure to `/runtime/init/error`.
    package func reportInitializationFailure(_ failure: InvocationFailure) async {
        do {
            try await blocking { try retrying("init error") { try client.initializationFailed(failure) } }
        } catch {
            log("could not report the init error: \(error)")
        }
    }

    /// Runs a blocking call on the I/O queue.
    private func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            io.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// The waits between reconnections: 10 ms, doubling up to a second, without jitter (one
    /// runtime per execution environment, so no crowd of clients to spread out).
    static let reconnection = Backoff(base: .milliseconds(10), cap: .seconds(1), jitter: Backoff.none)

    private func retrying<T>(_ what: String, _ body: () throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try body()
            } catch let error as RuntimeAPIError where error.code == .connection && attempt < maximumAttempts {
                log("\(what): \(error.message); reconnecting (attempt \(attempt + 1) of \(maximumAttempts))")
                client.reconnect()
                let wait = Self.reconnection.delay(after: attempt).components
                usleep(UInt32(wait.seconds * 1_000_000 + wait.attoseconds / 1_000_000_000_000))
                attempt += 1
            }
        }
    }
}
