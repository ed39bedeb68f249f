import Foundation
import InkraTime
import InkraTracing
import Synchronization
import Testing

/// The trace header as X-Ray's developer guide writes it ("Tracing header",
/// https://docs.aws.amazon.com/xray/latest/devguide/xray-concepts.html#xray-concepts-tracingheader),
/// and spans that nest as the calls do.
@Suite("Trace: the header Lambda sends, and spans recorded only when traced")
struct TraceTests {
    @Test("Lambda's header: root, parent, sampled; other fields ignored")
    func header() throws {
        let header = try #require(
            TraceHeader("Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1;Lineage=a87bd80c:1")
        )
        #expect(header.root == "1-5759e988-bd862e3fe1be46a994272793")
        #expect(header.parent == "53995c3f42cd8ad8")
        #expect(header.sampled)
        #expect(TraceHeader("Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=0")?.sampled == false)
        #expect(TraceHeader("Root=1-5759e988-bd862e3fe1be46a994272793")?.parent == nil)
    }

    @Test(
        "A header without a well-formed root is no header",
        arguments: [
            "", "Sampled=1", "Root=2-5759e988-bd862e3fe1be46a994272793", "Root=1-5759e98-bd862e3fe1be46a994272793x",
            "Root=1-5759e988-bd862e3fe1be46a99427279;Sampled=1",
        ])
    func malformed(text: String) {
        #expect(TraceHeader(text) == nil)
    }

    @Test("A parent that is not 16 hex digits is dropped, the root kept")
    func malformedParent() {
        #expect(TraceHeader("Root=1-5759e988-bd862e3fe1be46a994272793;Parent=xyz;Sampled=1")?.parent == nil)
    }

    @Test("Without a recorder a span only runs its body")
    func untraced() async throws {
        let ran = try await RequestScope().span("work") { _, _ in 42 }
        #expect(ran == 42)
    }

    @Test("Spans nest as the calls do, finish inner first, and a throw marks a fault")
    func nesting() async throws {
        let tick = Mutex(0.0)
        let ids = Mutex(0)
        let recorder = TraceRecorder(
            header: TraceHeader(root: "1-5759e988-bd862e3fe1be46a994272793", parent: "53995c3f42cd8ad8", sampled: true),
            now: {
                tick.withLock {
                    $0 += 1
                    return $0
                }
            },
            newID: {
                String(
                    format: "%016x",
                    ids.withLock {
                        $0 += 1
                        return $0
                    })
            })
        struct Failure: Error {}
        let scope = RequestScope(trace: Trace(recorder: recorder))
        try await scope.span("outer") { _, inner in
            try await inner.span("DynamoDB", namespace: .aws) { span, _ in span.record(status: 429) }
            do {
                try await inner.span("model", namespace: .remote) { _, _ in throw Failure() }
            } catch {}
        }
        let (spans, dropped) = recorder.spans
        #expect(dropped == 0)
        #expect(spans.map(\.name) == ["DynamoDB", "model", "outer"])
        let outer = try #require(spans.last)
        #expect(outer.parentID == nil)
        #expect(spans.dropLast().allSatisfy { $0.parentID == outer.id })
        #expect(spans[0].throttle && spans[0].error && !spans[0].fault && spans[0].namespace == .aws)
        #expect(spans[1].fault && spans[1].cause?.hasPrefix("Failure") == true, "\(spans[1])")
        #expect(!outer.fault, "the failure was caught inside")
        #expect(spans.allSatisfy { ($0.end ?? 0) > $0.start })
    }

    @Test("Past the bound, spans are dropped and counted, never kept without end")
    func bounded() async {
        let recorder = TraceRecorder(
            header: TraceHeader(root: "1-5759e988-bd862e3fe1be46a994272793", parent: nil, sampled: true),
            now: { 0 })
        let scope = RequestScope(trace: Trace(recorder: recorder))
        for _ in 0..<(TraceRecorder.maximumSpans + 7) {
            await scope.span("backoff") { _, _ in }
        }
        #expect(recorder.spans.finished.count == TraceRecorder.maximumSpans)
        #expect(recorder.spans.dropped == 7)
    }
}
