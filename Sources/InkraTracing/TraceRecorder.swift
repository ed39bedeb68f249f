import Synchronization

/// The spans of one traced invocation, as they finish: what the runtime turns into X-Ray
/// subsegments once the invocation is over.
package final class TraceRecorder: Sendable {
    /// The most spans one invocation keeps; past it, spans are counted and dropped, so a document
    /// stays within X-Ray's 64 kB (a span is a few hundred bytes).
    package static let maximumSpans = 100

    /// The trace the invocation is in.
    package let header: TraceHeader
    private let now: @Sendable () -> Double
    private let newID: @Sendable () -> String
    private let state = Mutex(State())

    private struct State {
        var finished: [TraceSpan] = []
        var dropped = 0
    }

    /// A recorder for one invocation.
    /// - Parameters:
    ///   - header: the invocation's trace header.
    ///   - now: the clock of the spans' start and end times.
    ///   - newID: makes span ids (16 hex digits); random by default.
    package init(
        header: TraceHeader, now: @escaping @Sendable () -> Double,
        newID: @escaping @Sendable () -> String = TraceRecorder.randomID
    ) {
        self.header = header
        self.now = now
        self.newID = newID
    }

    /// A new span, started now.
    func begin(_ name: String, namespace: TraceSpan.Namespace?, parentID: String?) -> TraceSpan {
        TraceSpan(name: name, id: newID(), parentID: parentID, namespace: namespace, start: now())
    }

    /// Keeps `span`, ended now.
    func finish(_ span: TraceSpan) {
        var span = span
        span.end = now()
        state.withLock { state in
            if state.finished.count < Self.maximumSpans {
                state.finished.append(span)
            } else {
                state.dropped += 1
            }
        }
    }

    /// The spans finished so far, in the order they finished, and how many were dropped.
    package var spans: (finished: [TraceSpan], dropped: Int) {
        state.withLock { ($0.finished, $0.dropped) }
    }

    /// A random span id: 16 hex digits.
    package static func randomID() -> String {
        let value = UInt64.random(in: 1...UInt64.max)
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
