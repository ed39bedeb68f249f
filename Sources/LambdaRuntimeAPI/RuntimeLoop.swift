import Dispatch

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// The custom runtime's loop: next invocation → handler → response or error, forever.
///
/// A handler that throws is reported as an invocation error and the loop goes on; a dropped
/// connection is retried with backoff; the loop ends only when the Runtime API stays unreachable.
public struct RuntimeLoop: Sendable {
    /// Handles one event: bytes in, bytes out.
    public typealias Handler = @Sendable (InvocationContext, [UInt8]) async throws -> [UInt8]

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
    ///   - log: where the loop reports what it retries.
    public init(client: RuntimeClient, maximumAttempts: Int = 5, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.client = client
        self.maximumAttempts = maximumAttempts
        self.log = log
    }

    /// Runs invocations until `limit` have been handled (forever when `nil`).
    /// - Throws: ``RuntimeAPIError`` when the Runtime API cannot be reached after retries.
    public func run(limit: Int? = nil, handler: Handler) async throws {
        var handled = 0
        while limit.map({ handled < $0 }) ?? true {
            let (context, event) = try await blocking { try retrying("next invocation") { try client.next() } }
            if let trace = context.traceID {
                setenv("_X_AMZN_TRACE_ID", trace, 1)
            } else {
                unsetenv("_X_AMZN_TRACE_ID")
            }
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
            case .success(let body):
                try await blocking {
                    try retrying("response") { try client.respond(to: context.requestID, with: body) }
                }
            case .failure(let failure):
                try await blocking {
                    try retrying("error report") { try client.fail(context.requestID, with: failure) }
                }
            }
            handled += 1
        }
    }

    /// Reports a start-up failure to `/runtime/init/error`.
    public func reportInitializationFailure(_ failure: InvocationFailure) {
        do {
            try retrying("init error") { try client.initializationFailed(failure) }
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

    private func retrying<T>(_ what: String, _ body: () throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try body()
            } catch RuntimeAPIError.connection(let message) where attempt < maximumAttempts {
                log("\(what): \(message); reconnecting (attempt \(attempt + 1) of \(maximumAttempts))")
                client.reconnect()
                usleep(UInt32(min(1_000_000, 10_000 << (attempt - 1))))
                attempt += 1
            }
        }
    }
}
