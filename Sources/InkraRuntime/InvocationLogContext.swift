/// The invocation a log line is written in: its request id and trace id, which every line carries
/// (Lambda's JSON format's `requestId`, and the Text format's second column), set by the runtime
/// around each invocation and read by ``LambdaLogHandler`` from the task, never from the
/// environment.
struct InvocationLogContext: Sendable, Hashable {
    /// `Lambda-Runtime-Aws-Request-Id`.
    var requestID: String
    /// The trace's root (`1-…`), when Lambda sent a trace header.
    var traceID: String?

    /// The invocation of the task, when it is in one.
    @TaskLocal static var current: InvocationLogContext?
}
