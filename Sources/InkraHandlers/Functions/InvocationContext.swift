import InkraTime
import InkraTracing
import Logging

/// What a function knows of the invocation under way, beside its event: the request's id, its
/// time, its deadlines, its trace header and a logger (as Lambda's own context has them).
///
/// The runtime makes one for every invocation; a test makes its own, at its clock's time:
///
/// ```swift
/// let answer = try await generate.handle(event, context: InvocationContext(time: clock.now))
/// ```
///
/// A function reads everything of the request from it, and passes it down as values: it calls its
/// store bound to the context (`store.bound(to: context)`) and its other clients bound to its
/// `scope`, so their calls stay within the deadlines and go in the invocation's trace, and it
/// logs through ``logger``, whose metadata the runtime fills with the request id and trace id.
public struct InvocationContext: Sendable {
    /// `Lambda-Runtime-Aws-Request-Id`.
    public var requestID: String
    /// The instant the function counts the request at (usage windows, token expiry, leases): the
    /// invocation's start, or, under `INKRA_CLOCK=request-time`, API Gateway's receive time of
    /// the event (`requestContext.requestTimeEpoch` or `timeEpoch`), which is also where the
    /// emulator puts a replayed event's recorded time.
    public var time: Timestamp
    /// The instant by which the request's work must be over: the earlier of Lambda's deadline and
    /// API Gateway's integration timeout, less a margin. `nil`: no deadline (a test, a local call),
    /// and each step is bounded by its own timeout only.
    public var deadline: ContinuousClock.Instant?
    /// The instant by which the request's clean-up (giving a unit back, recording an answer) must
    /// be over; `nil`: a short budget past ``deadline``.
    package var cleanupDeadline: ContinuousClock.Instant?
    /// `Lambda-Runtime-Trace-Id` (X-Ray's trace header), when Lambda sent one.
    package var traceID: String?
    /// The invocation's logger.
    public var logger: Logger

    /// Creates a context.
    /// - Parameters:
    ///   - requestID: the request's id.
    ///   - time: the instant the request is counted at (a test's clock, the runtime's start of the
    ///     invocation): given, never read here.
    ///   - deadline: when the work must be over; by default none.
    ///   - cleanupDeadline: when clean-up must be over; by default a short budget past `deadline`.
    ///   - traceID: the trace header.
    ///   - logger: the invocation's logger.
    public init(
        requestID: String = "local",
        time: Timestamp,
        deadline: ContinuousClock.Instant? = nil,
        cleanupDeadline: ContinuousClock.Instant? = nil,
        traceID: String? = nil,
        logger: Logger = Logger(label: "inkra.invocation")
    ) {
        self.requestID = requestID
        self.time = time
        self.deadline = deadline
        self.cleanupDeadline = cleanupDeadline
        self.traceID = traceID
        self.logger = logger
    }

    /// The trace the invocation's spans go in: the span of the function, when X-Ray samples the
    /// invocation (the runtime sets it); none otherwise.
    package var trace = Trace()

    /// What the dependencies of a function need of the invocation: its deadlines and its trace.
    package var scope: RequestScope {
        RequestScope(deadline: deadline, cleanupDeadline: cleanupDeadline, trace: trace)
    }
}
