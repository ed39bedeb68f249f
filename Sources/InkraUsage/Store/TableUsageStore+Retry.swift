import InkraCrypto
import InkraTime
import SingleTable

extension TableUsageStore {
    /// Writes a transaction, retrying it while other requests hold its items (see ``Retry``).
    /// - Throws: the table's error: a cancellation that names a failed condition, unchanged (a
    ///   refusal, or an idempotent repeat); a ``TableError`` saying the conflict outlasted the
    ///   request's deadline; any other failure as the table threw it.
    func transact(_ actions: [TransactWriteItem]) async throws {
        var token: String?
        try await transact(actions, lastToken: &token)
    }

    /// ``transact(_:)``, saying the `ClientRequestToken` of the last attempt sent, which after an
    /// unknown outcome is the one a repeat must carry (``resend(_:token:)``).
    func transact(_ actions: [TransactWriteItem], lastToken: inout String?) async throws {
        try await retry.transaction(before: scope.deadline) { token in
            lastToken = token
            let request = TransactWriteItemsRequest(transactItems: actions, clientRequestToken: token)
            try await table.transactWriteItems(request)
        }
    }

    /// Sends a transaction whose outcome is unknown again, under the same `ClientRequestToken`:
    /// DynamoDB answers a repeat of a transaction it applied (within ten minutes) with success and
    /// changes nothing, and applies one it never saw, so success means "applied, once".
    /// - Returns: `true` when the transaction is applied, `false` when a condition refused it.
    /// - Throws: when the outcome is still unknown.
    func resend(_ actions: [TransactWriteItem], token: String) async throws -> Bool {
        do {
            try await retry.transaction(keeping: token, before: scope.deadline) { token in
                let request = TransactWriteItemsRequest(transactItems: actions, clientRequestToken: token)
                try await table.transactWriteItems(request)
            }
            return true
        } catch let error as TableError where error.code == .transactionCanceled && !error.isTransientCancellation {
            return false
        }
    }

    /// Updates one item, retrying while a transaction holds it (`TransactionConflictException`).
    /// The update is sent again as it is, so it must be idempotent (`SET`, never `ADD`).
    func update(_ request: UpdateItemRequest) async throws -> WriteItemResponse {
        try await retry.write(before: scope.deadline) { try await table.updateItem(request) }
    }

    /// Reads items by key, consistently, with `BatchGetItem`: the keys DynamoDB leaves unprocessed
    /// (when the table throttles) are asked for again after the same full-jitter exponential
    /// backoff as a conflicting write, never at once, within the request's deadline — as
    /// DynamoDB's `BatchGetItem` reference asks of a client.
    /// - Throws: ``UsageStoreError`` naming `operation`, when the table fails or keys are still
    ///   unprocessed when no attempt fits before the deadline any more.
    func readAll(_ keys: [Item], operation: String) async throws -> [Item] {
        var items: [Item] = []
        var pending = [tableName: KeysAndAttributes(keys: keys, consistentRead: true)]
        let started = retry.now()
        let deadline = scope.deadline ?? started.advanced(by: retry.budgetWithoutDeadline)
        var attempts = 0
        do {
            while true {
                attempts += 1
                let response = try await table.batchGetItem(BatchGetItemRequest(requestItems: pending))
                items += response.responses[tableName] ?? []
                pending = response.unprocessedKeys
                if pending.isEmpty { return items }
                guard let delay = retry.delay(after: attempts, before: deadline) else {
                    throw Retry.gaveUp(
                        TableError(.provisionedThroughputExceeded, "BatchGetItem left keys unprocessed"),
                        attempts: attempts, after: started.duration(to: retry.now()))
                }
                try await retry.sleep(delay)
            }
        } catch {
            throw UsageStoreError(operation: operation, underlying: error)
        }
    }

    /// How the store retries a write that met another request on its items: another transaction
    /// (a double tap, a client's retry, two devices of one user), or the table's throttling.
    ///
    /// DynamoDB cancels a transaction with reason `TransactionConflict` while another transaction
    /// holds one of its items, and refuses a plain write to such an item with
    /// `TransactionConflictException`; neither changed anything, so the write is sent again after a
    /// full-jitter exponential backoff, until it goes through, fails for a reason of its own, or no
    /// attempt fits before the request's deadline any more (the last wait is cut short so one does:
    /// ``delay(after:before:)``; the deadline of the request the store is bound to, or
    /// ``budgetWithoutDeadline`` without one).
    ///
    /// A transaction gets a fresh `ClientRequestToken` for each attempt — a cancelled one applied
    /// nothing, and a token DynamoDB has seen may be answered with its first outcome again — except
    /// once an attempt's outcome is unknown (``TableError/isOutcomeUnknown``: a timeout, a 5xx, a
    /// transaction still in progress): from then on every attempt reuses that attempt's token, so it
    /// can apply once at most.
    struct Retry: Sendable {
        /// The waits between attempts: full jitter under a cap that doubles from 20 ms to 500 ms.
        var backoff = Backoff(base: .milliseconds(20), cap: .milliseconds(500))
        /// How long to keep retrying when the request has no deadline.
        var budgetWithoutDeadline: Duration = .seconds(3)
        /// Waits between attempts.
        var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
        /// A new `ClientRequestToken`.
        var token: @Sendable () -> String = { RandomUUID.string() }
        /// The clock the deadline is read on.
        var now: @Sendable () -> ContinuousClock.Instant = { .now }

        /// Runs `attempt` with a `ClientRequestToken` until it succeeds or may not be retried, or no
        /// attempt fits before `deadline` any more; with `keeping`, every attempt carries that token.
        func transaction<Value>(
            keeping token: String? = nil, before deadline: ContinuousClock.Instant?,
            _ attempt: (String) async throws -> Value
        ) async throws -> Value {
            try await run(attempt, keeping: token, before: deadline) { error in
                error.isTransientCancellation || error.code == .transactionConflict
                    || error.code == .transactionInProgress
            }
        }

        /// Runs a plain write until it succeeds or fails for another reason than a transaction
        /// holding its item, or no attempt fits before `deadline` any more.
        func write<Value>(
            before deadline: ContinuousClock.Instant?, _ attempt: () async throws -> Value
        ) async throws -> Value {
            try await run(
                { _ in try await attempt() }, keeping: nil, before: deadline,
                retryable: { $0.code == .transactionConflict })
        }

        /// What a last attempt keeps back from the deadline for its own round trip.
        var lastAttempt: Duration = .milliseconds(100)

        /// The wait before the next attempt: the backoff, shortened so that one more attempt still
        /// fits before `deadline` (``lastAttempt`` before it), or `nil` when none fits any more.
        func delay(after attempts: Int, before deadline: ContinuousClock.Instant) -> Duration? {
            let left = now().duration(to: deadline) - lastAttempt
            guard left > .zero else { return nil }
            return min(backoff.delay(after: attempts), left)
        }

        private func run<Value>(
            _ attempt: (String) async throws -> Value,
            keeping kept: String?,
            before requestDeadline: ContinuousClock.Instant?,
            retryable: (TableError) -> Bool
        ) async throws -> Value {
            let started = now()
            let deadline = requestDeadline ?? started.advanced(by: budgetWithoutDeadline)
            var token = kept ?? self.token()
            var keepToken = kept != nil
            var attempts = 0
            while true {
                attempts += 1
                var error: TableError
                do {
                    return try await attempt(token)
                } catch let thrown as TableError {
                    error = thrown
                }
                keepToken = keepToken || error.isOutcomeUnknown
                error.followsUnknownOutcome = keepToken
                guard retryable(error) else { throw error }
                guard let delay = delay(after: attempts, before: deadline) else {
                    throw Self.gaveUp(error, attempts: attempts, after: started.duration(to: now()))
                }
                try await sleep(delay)
                if !keepToken { token = self.token() }
            }
        }

        /// The error for a write that was still held up when the deadline came: a conflict when
        /// another transaction was the cause, throttling otherwise, with the last reasons.
        static func gaveUp(_ last: TableError, attempts: Int, after elapsed: Duration) -> TableError {
            let code: TableError.Code
            if last.code == .transactionInProgress {
                code = .transactionInProgress
            } else if last.isConflict {
                code = .transactionConflict
            } else if last.cancellationReasons.contains(where: { $0.code == "ProvisionedThroughputExceeded" }) {
                code = .provisionedThroughputExceeded
            } else {
                code = .throttling
            }
            let milliseconds =
                elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
            let cause = code == .transactionConflict ? "another transaction kept holding its items" : "still held up"
            return TableError(
                code,
                "gave up after \(attempts) attempts in \(milliseconds) ms, before the request's deadline: \(cause) "
                    + "(last: \(last.code.rawValue): \(last.message))",
                cancellationReasons: last.cancellationReasons,
                followsUnknownOutcome: last.followsUnknownOutcome
            )
        }
    }
}
