#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where a request's time goes: the spans of the current invocation, carried by the task.
///
/// The runtime sets a ``TraceRecorder`` for an invocation that X-Ray samples (and only when Lambda
/// gave it the X-Ray daemon's address); the table client, the question generator, the key source
/// and the functions wrap their steps in ``span(_:namespace:_:)``. Without a recorder — not
/// sampled, tracing off, a test, the emulator's in-process functions — a span only runs its body.
package enum Trace {
    /// The recorder of the task's invocation, when it is traced.
    @TaskLocal package static var recorder: TraceRecorder?

    /// The id of the span the task is in, so spans nest as the calls do.
    @TaskLocal static var parentID: String?

    /// Runs `body` as a span named `name`, under the span the task is in.
    ///
    /// `body` fills in what it learns (an operation, a status, whether it was throttled) through
    /// the span it is handed. A body that throws marks the span a fault, unless it marked the span
    /// an error or throttled itself.
    /// - Parameters:
    ///   - name: the span's name, such as `DynamoDB` or `model`.
    ///   - namespace: `aws` or `remote` for a downstream call; `nil` for local work.
    ///   - body: the work.
    /// - Returns: what `body` returns.
    package static func span<Value, Failure: Error>(
        _ name: String, namespace: TraceSpan.Namespace? = nil,
        _ body: (inout TraceSpan) async throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        guard let recorder else {
            var ignored = TraceSpan(name: name, id: "", parentID: nil, start: .distantPast)
            return try await body(&ignored)
        }
        var span = recorder.begin(name, namespace: namespace, parentID: parentID)
        let id = span.id
        let result: Result<Value, Failure> = await $parentID.withValue(id) {
            do throws(Failure) {
                return .success(try await body(&span))
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = result {
            if !span.error && !span.throttle && !span.fault { span.fault = true }
            if span.cause == nil { span.cause = "\(type(of: error as any Error))" }
        }
        recorder.finish(span)
        return try result.get()
    }
}
