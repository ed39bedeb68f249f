import Foundation
import InkraTestSupport
import InkraTime
import SingleTable
import Synchronization
import Testing

@testable import InkraUsage

/// A clock that moves only when the retry waits, and the tokens and waits the retry asked for.
final class RetryRecorder: Sendable {
    let start = ContinuousClock.now
    private let state = Mutex((waited: Duration.zero, waits: [Duration](), tokens: 0))

    var waited: Duration { state.withLock { $0.waited } }
    var waits: [Duration] { state.withLock { $0.waits } }

    func retry(jitter: Double = 0.5) -> TableUsageStore.Retry {
        var retry = TableUsageStore.Retry()
        retry.sleep = { duration in
            self.state.withLock { state in
                state.waited += duration
                state.waits.append(duration)
            }
        }
        retry.now = { self.start + self.waited }
        retry.backoff.jitter = { jitter }
        retry.token = {
            self.state.withLock { state in
                state.tokens += 1
                return "token-\(state.tokens)"
            }
        }
        return retry
    }
}

/// Answers each attempt from a script, recording the tokens it was given.
final class ScriptedAttempts: Sendable {
    private let state: Mutex<(script: [TableError?], tokens: [String])>

    init(_ script: [TableError?]) { state = Mutex((script, [])) }

    var tokens: [String] { state.withLock { $0.tokens } }

    func attempt(_ token: String) throws {
        let next: TableError? = state.withLock { state in
            state.tokens.append(token)
            return state.script.isEmpty ? nil : state.script.removeFirst()
        }
        if let next { throw next }
    }
}

func cancelled(_ codes: String...) -> TableError { cancelled(codes) }

/// A cancellation as DynamoDB words it, with these reason codes in action order.
func cancelled(_ codes: [String]) -> TableError {
    TableError(
        .transactionCanceled,
        "Transaction cancelled, please refer cancellation reasons for specific reasons [\(codes.joined(separator: ", "))]",
        cancellationReasons: codes.map { TableError.CancellationReason(code: $0) }
    )
}

@Suite("The usage store's retry of writes that meet another transaction")
struct TableUsageStoreRetryTests {
    @Test(
        "Only conflicts and throttling make a cancellation transient; any condition makes it an answer",
        arguments: [
            (["None", "TransactionConflict", "None"], true),
            (["ThrottlingError"], true),
            (["ProvisionedThroughputExceeded", "None", "TransactionConflict"], true),
            (["ConditionalCheckFailed", "None", "None"], false),
            (["ConditionalCheckFailed", "TransactionConflict", "None"], false),
            (["None", "ValidationError", "TransactionConflict"], false),
            (["None", "None"], false),
            ([], false),
        ])
    func transientReasons(codes: [String], transient: Bool) {
        let error = TableError(
            .transactionCanceled, "cancelled",
            cancellationReasons: codes.map { TableError.CancellationReason(code: $0) })
        #expect(error.isTransientCancellation == transient)
        #expect(error.isConflict == codes.contains("TransactionConflict"))
        #expect(!error.isRetryable, "the table client must not resend a cancelled transaction under its token")
    }

    @Test("The backoff is full jitter under a cap that doubles from 20 ms to 500 ms")
    func backoff() {
        let top = RetryRecorder().retry(jitter: 1)
        let caps = (1...8).map { top.backoff.delay(after: $0) }
        #expect(caps.map { $0 / .milliseconds(1) } == [20, 40, 80, 160, 320, 500, 500, 500])
        #expect(RetryRecorder().retry(jitter: 0).backoff.delay(after: 5) == .zero)
        #expect(RetryRecorder().retry(jitter: 0.25).backoff.delay(after: 3) == .milliseconds(20))
    }

    @Test("A conflict that never clears is retried until the next wait would pass the request's deadline")
    func stopsAtDeadline() async throws {
        let recorder = RetryRecorder()
        let attempts = ScriptedAttempts(Array(repeating: cancelled("None", "TransactionConflict"), count: 1000))
        let deadline = recorder.start + .seconds(1)
        let error = await #expect(throws: TableError.self) {
            try await recorder.retry().transaction(before: deadline, attempts.attempt)
        }
        #expect(error?.code == .transactionConflict)
        #expect(error?.cancellationReasons.map(\.code) == ["None", "TransactionConflict"])
        #expect(recorder.waited < .seconds(1))
        let count = attempts.tokens.count
        #expect(count > 3)
        #expect(recorder.waited + recorder.retry().backoff.delay(after: count) >= .seconds(1), "gave up early")
        #expect(error?.message.contains("gave up after \(count) attempts") == true, "\(String(describing: error))")
    }

    @Test("Without a request deadline, retries end within three seconds")
    func budgetWithoutDeadline() async throws {
        let recorder = RetryRecorder()
        let attempts = ScriptedAttempts(Array(repeating: cancelled("ThrottlingError"), count: 1000))
        let error = await #expect(throws: TableError.self) {
            try await recorder.retry().transaction(before: nil, attempts.attempt)
        }
        #expect(error?.code == .throttling)
        #expect(recorder.waited < .seconds(3))
        #expect(recorder.waited > .seconds(2))
    }

    @Test("A fresh token after each cancellation; the same one from an unknown outcome on")
    func tokens() async throws {
        let recorder = RetryRecorder()
        let inProgress = TableError(
            .transactionInProgress, "The transaction with the given request token is already in progress.")
        let attempts = ScriptedAttempts([
            cancelled("TransactionConflict", "None"), cancelled("None", "ThrottlingError"), inProgress,
            cancelled("TransactionConflict", "None"), nil,
        ])
        try await recorder.retry().transaction(before: nil, attempts.attempt)
        #expect(attempts.tokens == ["token-1", "token-2", "token-3", "token-3", "token-3"])
        #expect(recorder.waits.count == 4)

        var afterTimeout = cancelled("None", "TransactionConflict")
        afterTimeout.followsUnknownOutcome = true
        let unknown = ScriptedAttempts([afterTimeout, cancelled("TransactionConflict"), nil])
        try await RetryRecorder().retry().transaction(before: nil, unknown.attempt)
        #expect(Set(unknown.tokens).count == 1 && unknown.tokens.count == 3, "\(unknown.tokens)")
    }

    @Test("A cancellation naming a failed condition is thrown at once, unchanged")
    func conditionIsAnswer() async throws {
        let recorder = RetryRecorder()
        let refusal = cancelled("None", "ConditionalCheckFailed", "None")
        let attempts = ScriptedAttempts([refusal])
        await #expect(throws: refusal) { try await recorder.retry().transaction(before: nil, attempts.attempt) }
        #expect(attempts.tokens.count == 1)
        #expect(recorder.waits.isEmpty)
    }

    @Test("A plain write is retried on TransactionConflictException only; other failures are the client's")
    func plainWrites() async throws {
        let recorder = RetryRecorder()
        let conflict = TableError(.transactionConflict, "Transaction is ongoing for the item")
        let attempts = ScriptedAttempts([conflict, conflict, nil])
        try await recorder.retry().write(before: nil) { try attempts.attempt("") }
        #expect(attempts.tokens.count == 3)
        let throttled = ScriptedAttempts([TableError(.throttling, "Rate exceeded"), nil])
        await #expect(throws: TableError.self) {
            try await recorder.retry().write(before: nil) { try throttled.attempt("") }
        }
        #expect(throttled.tokens.count == 1)
    }

    @Test("The store retries a conflict from any table: consume, give back, complete, and the refusal marks")
    func storeOverConflictingTable() async throws {
        // What is retried is the subject here, not timing: the retries wait on a clock that moves
        // only when they wait, and the deadline is an hour ahead, so a busy machine that stalls the
        // test for a minute cannot run it out (it once did, on the real clock).
        let recorder = RetryRecorder()
        try await storeRetriesConflicts(retry: recorder.retry(), deadline: recorder.start + .seconds(3600))
        #expect(recorder.waits.count == 14, "one wait after each conflict: \(recorder.waits)")
    }

    private func storeRetriesConflicts(
        retry: TableUsageStore.Retry, deadline: ContinuousClock.Instant
    ) async throws {
        let table = ConflictingTable(conflicts: 2)
        var unbound = TableUsageStore(table: table, tableName: "inkra-usage")
        unbound.retry = retry
        let store = unbound.bound(to: RequestScope(deadline: deadline))
        let at = instant("2026-03-10T10:00:00Z")
        let limits = Limits(monthly: 5, daily: 5, hourly: 1)
        // A call given up on: its unit comes back.
        guard
            case .consumed(let givenUp, _) = try await store.consume(
                ConsumeRequest(userID: "u1", instant: at, limits: limits, idempotencyKey: "k1"))
        else {
            Issue.record("expected consumed")
            return
        }
        try await store.release(givenUp)
        // A call answered: its unit stays.
        let outcome = try await store.consume(
            ConsumeRequest(userID: "u1", instant: at, limits: limits, idempotencyKey: "k2"))
        guard case .consumed(let consumption, _) = outcome else {
            Issue.record("expected consumed, got \(outcome)")
            return
        }
        try await store.complete(consumption, with: StoredResponse(statusCode: 200, body: "{}"))
        guard
            case .refused(let refusal) = try await store.consume(
                ConsumeRequest(userID: "u1", instant: at, limits: limits))
        else {
            Issue.record("expected a refusal")
            return
        }
        #expect(refusal.recorded)
        #expect(try await store.refusedUsers(on: "2026-03-10") == [userKey("u1")])
        #expect(try await store.usage(for: "u1", at: at, limits: limits).hourly.used == 1)
        // Two conflicts for each of the seven writes: the charge, the give-back, the charge, the
        // completion, the refused charge, the day's mark and the standing refusal.
        #expect(table.conflicts == 14)
    }
}

/// An in-memory table whose every transaction and update first meets `conflicts` other
/// transactions, as DynamoDB reports them.
final class ConflictingTable: ForwardingTable {
    let base = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
    private let perWrite: Int
    private let state = Mutex((pending: [String: Int](), conflicts: 0))

    init(conflicts: Int) { perWrite = conflicts }

    var conflicts: Int { state.withLock { $0.conflicts } }

    /// Whether this write meets a conflict; writes are told apart by what they write.
    private func conflicts(_ write: String) -> Bool {
        state.withLock { state in
            let left = state.pending[write] ?? perWrite
            state.pending[write] = left - 1
            if left > 0 { state.conflicts += 1 }
            return left > 0
        }
    }

    func updateItem(_ request: UpdateItemRequest) async throws -> WriteItemResponse {
        if conflicts("\(request.key) \(request.updateExpression ?? "")") {
            throw TableError(.transactionConflict, "Transaction is ongoing for the item")
        }
        return try await base.updateItem(request)
    }
    func transactWriteItems(_ request: TransactWriteItemsRequest) async throws {
        if conflicts("\(request.transactItems)") {
            throw cancelled(request.transactItems.indices.map { $0 == 0 ? "TransactionConflict" : "None" })
        }
        try await base.transactWriteItems(request)
    }
}
