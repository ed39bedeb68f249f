/// What carries a request's ``Trace`` down the calls that do its work: InkraTime's `RequestScope`.
package protocol Traced: Sendable {
    /// Where the request's spans go, and the span they are in.
    var trace: Trace { get set }
}

extension Traced {
    /// Runs `body` as a span named `name`, under the span this value is in.
    ///
    /// `body` fills in what it learns (an operation, a status, whether it was throttled) through
    /// the span it is handed, and gets the scope of the calls inside the span, so their spans nest
    /// under it. A body that throws marks the span a fault, unless it marked the span an error or
    /// throttled itself.
    /// - Parameters:
    ///   - name: the span's name, such as `DynamoDB` or `model`.
    ///   - namespace: `aws` or `remote` for a downstream call; `nil` for local work.
    ///   - body: the work.
    /// - Returns: what `body` returns.
    package func span<Value, Failure: Error>(
        _ name: String, namespace: TraceSpan.Namespace? = nil,
        _ body: (inout TraceSpan, Self) async throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        guard let recorder = trace.recorder else {
            var ignored = TraceSpan(name: name, id: "", parentID: nil, start: 0)
            return try await body(&ignored, self)
        }
        var span = recorder.begin(name, namespace: namespace, parentID: trace.parentID)
        var inner = self
        inner.trace.parentID = span.id
        let result: Result<Value, Failure>
        do throws(Failure) {
            result = .success(try await body(&span, inner))
        } catch {
            result = .failure(error)
        }
        if case .failure(let error) = result {
            if !span.error && !span.throttle && !span.fault { span.fault = true }
            if span.cause == nil { span.cause = "\(type(of: error as any Error))" }
        }
        recorder.finish(span)
        return try result.get()
    }
}
