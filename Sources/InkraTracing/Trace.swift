/// Where a request's spans go: the recorder of an invocation X-Ray samples, and the span the
/// calls are in, so spans nest as the calls do. It travels in a `RequestScope` (InkraTime's), which
/// is ``Traced``.
///
/// The runtime makes a ``TraceRecorder`` for an invocation that X-Ray samples (and only when Lambda
/// gave it the X-Ray daemon's address). Without one — not sampled, tracing off, a test, the
/// emulator's in-process functions — a span only runs its body.
package struct Trace: Sendable {
    /// The recorder of the invocation, when it is traced.
    package var recorder: TraceRecorder?
    /// The id of the span the calls are in; `nil` directly under the invocation.
    var parentID: String?

    /// A trace into `recorder`; by default, none.
    package init(recorder: TraceRecorder? = nil) {
        self.recorder = recorder
    }
}
