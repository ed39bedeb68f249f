import Foundation
import InkraTestSupport
import InkraTime
import SingleTable
import Synchronization
import Testing

@testable import InkraUsage

/// `BatchGetItem`'s unprocessed keys, on the retry's virtual clock. The DynamoDB API reference
/// (BatchGetItem) asks a client to retry unprocessed keys with exponential backoff, not at once:
/// a table that throttles would otherwise get the same reads again and again.
@Suite("Unprocessed keys: asked for again after a full-jitter backoff, within the deadline")
struct UnprocessedKeysTests {
    let at = Timestamp(timeIntervalSince1970: 1_773_136_800)  // 2026-03-10T10:00:00Z

    @Test("Keys left unprocessed three times are read on the fourth try, after growing waits")
    func readAfterBackoff() async throws {
        let table = UnprocessedTable(pages: 3)
        let recorder = RetryRecorder()
        var store = TableUsageStore(table: table, tableName: "inkra-usage")
        store.retry = recorder.retry()
        let report = try await store.usage(for: "u1", at: at, limits: .free)
        #expect(report.monthly.used == 0)
        #expect(table.calls == 4)
        // Full jitter (0.5 here) under a cap of 20 ms that doubles.
        #expect(recorder.waits == [.milliseconds(10), .milliseconds(20), .milliseconds(40)])
    }

    @Test("Keys never processed: a bounded number of tries, then an error before the deadline")
    func neverProcessed() async throws {
        let table = UnprocessedTable(pages: .max)
        let recorder = RetryRecorder()
        var store = TableUsageStore(table: table, tableName: "inkra-usage")
        store.retry = recorder.retry()
        let bound = store.bound(to: RequestScope(deadline: recorder.start + .seconds(1)))
        await #expect(throws: UsageStoreError.self) {
            try await bound.usage(for: "u1", at: at, limits: .free)
        }
        // 10 + 20 + 40 + 80 + 160 + 250 + 250 ms waited; the next 250 would pass the second, so the
        // last wait is cut to 90 ms, for one more try that leaves 100 ms for its round trip.
        #expect(recorder.waited == .milliseconds(900))
        #expect(table.calls == 9)
    }
}

/// An in-memory table whose `BatchGetItem` leaves every key unprocessed for its first `pages`
/// calls, as DynamoDB does when the table throttles.
final class UnprocessedTable: ForwardingTable {
    let base = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
    private let pages: Int
    private let count = Mutex(0)

    init(pages: Int) { self.pages = pages }

    var calls: Int { count.withLock { $0 } }

    func batchGetItem(_ request: BatchGetItemRequest) async throws -> BatchGetItemResponse {
        let call = count.withLock { count in
            count += 1
            return count
        }
        if call <= pages { return BatchGetItemResponse(responses: [:], unprocessedKeys: request.requestItems) }
        return try await base.batchGetItem(request)
    }
}
