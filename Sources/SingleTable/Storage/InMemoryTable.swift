import InkraTime
import Synchronization

/// A DynamoDB-like table held in memory: partitions ordered by sort key, sparse global secondary
/// indexes, condition and update expressions, transactions — every operation atomic.
///
/// One lock guards the whole table, so each operation (a whole transaction included) sees and
/// leaves a consistent table; operations take microseconds, so contention stays low.
package final class InMemoryTable: Table {
    /// The table's name and keys.
    package let schema: TableSchema
    let state: Mutex<TableState>
    let expressions: ExpressionCache
    /// The key attributes' names, which an update may not change.
    let keyNames: Set<String>
    let now: @Sendable () -> Timestamp
    /// Where each operation's changes are recorded before they take effect, if anywhere.
    let journal: (any TableJournal)?

    /// A table with a schema, optionally holding items already.
    /// - Parameters:
    ///   - schema: the table's name, key and indexes.
    ///   - items: items to load; each must carry the key attributes.
    ///   - now: the clock for `ClientRequestToken` expiry.
    package convenience init(schema: TableSchema, items: [Item] = [], now: @escaping @Sendable () -> Timestamp) {
        self.init(schema: schema, items: items, journal: nil, now: now)
    }

    /// A table with a schema, holding items already (from a state file), that records each write
    /// in `journal` (a write-ahead log) before it takes effect.
    package init(
        schema: TableSchema, items: [Item] = [], journal: (any TableJournal)?,
        now: @escaping @Sendable () -> Timestamp
    ) {
        self.schema = schema
        keyNames = Set([schema.key.partitionKey] + (schema.key.sortKey.map { [$0] } ?? []))
        expressions = ExpressionCache(keyNames: keyNames)
        self.journal = journal
        self.now = now
        var initial = TableState(schema: schema)
        for item in items {
            if let key = try? initial.primaryKey(of: item, exact: false) { initial.store(item, at: key) }
        }
        state = Mutex(initial)
    }

    /// Every item, in partition-key then sort-key order.
    package func snapshot() -> [Item] {
        state.withLock { state in
            state.partitions.keys.sorted().flatMap { state.partitions[$0]!.map(\.item) }
        }
    }

    /// The number of items.
    package var count: Int { state.withLock { $0.count } }

    /// Removes every item.
    package func removeAll() {
        state.withLock { $0.removeAll() }
    }

    package func getItem(_ request: GetItemRequest) async throws -> GetItemResponse {
        try checkTable(request.tableName)
        let projection = try request.projectionExpression.map { text throws(TableError) in
            try expressions.projection(text)
        }
        try ExpressionContext.checkPlaceholders(
            used: [projection?.placeholders],
            names: request.expressionAttributeNames,
            values: [:]
        )
        let context = ExpressionContext(names: request.expressionAttributeNames, values: [:])
        let item = try state.withLock { state throws(TableError) in
            state.item(at: try state.primaryKey(of: request.key, exact: true))
        }
        return GetItemResponse(
            item: try item.map { item throws(TableError) in try Projection.apply(projection?.tree, to: item, context) })
    }

    package func batchGetItem(_ request: BatchGetItemRequest) async throws -> BatchGetItemResponse {
        let total = request.requestItems.values.reduce(0) { $0 + $1.keys.count }
        guard total > 0 else {
            throw TableError(
                .validation, "1 validation error detected: Value at 'requestItems' failed to satisfy constraint")
        }
        guard total <= 100 else {
            throw TableError(.validation, "Too many items requested for the BatchGetItem call")
        }
        var responses: [String: [Item]] = [:]
        for (tableName, keys) in request.requestItems {
            try checkTable(tableName)
            guard Set(keys.keys).count == keys.keys.count else {
                throw TableError(.validation, "Provided list of item keys contains duplicates")
            }
            var items: [Item] = []
            for key in keys.keys {
                let response = try await getItem(
                    GetItemRequest(
                        tableName: tableName,
                        key: key,
                        consistentRead: keys.consistentRead,
                        projectionExpression: keys.projectionExpression,
                        expressionAttributeNames: keys.expressionAttributeNames
                    )
                )
                if let item = response.item { items.append(item) }
            }
            responses[tableName] = items
        }
        return BatchGetItemResponse(responses: responses)
    }

    package func putItem(_ request: PutItemRequest) async throws -> WriteItemResponse {
        try write(.put(request))
    }

    package func updateItem(_ request: UpdateItemRequest) async throws -> WriteItemResponse {
        try write(.update(request))
    }

    package func deleteItem(_ request: DeleteItemRequest) async throws -> WriteItemResponse {
        try write(.delete(request))
    }

    /// One put, update or delete: its condition checked, the change recorded and made, atomically.
    private func write(_ action: TransactWriteItem) throws(TableError) -> WriteItemResponse {
        let write = try prepare(action)
        return try state.withLock { state throws(TableError) in
            let old = try write.check(against: state)
            let new = try write.apply(to: old)
            try record([TableChange(key: write.keyItem, item: new)])
            commit(new, replacing: old, at: write.key, in: &state)
            return WriteItemResponse(attributes: write.returned(old: old, new: new))
        }
    }

    package func transactWriteItems(_ request: TransactWriteItemsRequest) async throws {
        guard (1...100).contains(request.transactItems.count) else {
            throw TableError(
                .validation,
                "1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100"
            )
        }
        let writes = try request.transactItems.map { action throws(TableError) in try prepare(action) }
        guard Self.distinct(writes.map(\.key)) else {
            throw TableError(.validation, "Transaction request cannot include multiple operations on one item")
        }
        let instant = now()
        // Hashed before the lock is taken: the whole request is hashed, and other writes wait on the lock.
        let fingerprint = request.clientRequestToken == nil ? 0 : request.hashValue
        try state.withLock { state throws(TableError) in
            if let token = request.clientRequestToken {
                state.expireTokens(before: instant.addingTimeInterval(-600))
                if let previous = state.tokens[token] {
                    guard previous.fingerprint == fingerprint else {
                        throw TableError(
                            .idempotentParameterMismatch,
                            "The request uses the same client token as a previous, but non-identical request."
                        )
                    }
                    return
                }
            }
            var olds: [Item?] = []
            olds.reserveCapacity(writes.count)
            // Empty until a condition fails, then one reason for each action (`None` for those that held).
            var reasons: [TableError.CancellationReason] = []
            for index in writes.indices {
                do throws(TableError) {
                    olds.append(try writes[index].check(against: state))
                    if !reasons.isEmpty { reasons.append(.none) }
                } catch  where error.code == .conditionalCheckFailed {
                    if reasons.isEmpty { reasons = Array(repeating: .none, count: index) }
                    olds.append(nil)
                    reasons.append(
                        TableError.CancellationReason(
                            code: TableError.CancellationReason.conditionalCheckFailed,
                            message: "The conditional request failed",
                            item: error.item
                        )
                    )
                } catch {
                    throw error
                }
            }
            if !reasons.isEmpty {
                throw TableError(
                    .transactionCanceled,
                    "Transaction cancelled, please refer cancellation reasons for specific reasons [\(reasons.map(\.code).joined(separator: ", "))]",
                    cancellationReasons: reasons
                )
            }
            var news: [Item?] = []
            news.reserveCapacity(writes.count)
            for index in writes.indices { news.append(try writes[index].apply(to: olds[index])) }
            try record(
                writes.indices.filter { writes[$0].writes }.map {
                    TableChange(key: writes[$0].keyItem, item: news[$0])
                })
            for index in writes.indices where writes[index].writes {
                commit(news[index], replacing: olds[index], at: writes[index].key, in: &state)
            }
            if let token = request.clientRequestToken { state.remember(token, fingerprint: fingerprint, at: instant) }
        }
    }

    /// Whether no key repeats (pairwise for the few actions of a usual transaction).
    private static func distinct(_ keys: [TableState.PrimaryKey]) -> Bool {
        guard keys.count > 8 else {
            for (offset, key) in keys.enumerated() where keys[(offset + 1)...].contains(key) { return false }
            return true
        }
        return Set(keys).count == keys.count
    }

    /// Checks the table name.
    func checkTable(_ name: String) throws(TableError) {
        guard name == schema.tableName else { throw TableError(.resourceNotFound, "Requested resource not found") }
    }

    /// Records changes in the journal before they are committed; a journal that cannot record
    /// fails the operation with nothing changed. Without a journal, the changes are not even built.
    private func record(_ changes: @autoclosure () -> [TableChange]) throws(TableError) {
        guard let journal else { return }
        let changes = changes()
        guard !changes.isEmpty else { return }
        do {
            try journal.record(changes)
        } catch {
            throw TableError(.internalServerError, "the table's journal cannot record the write: \(error)")
        }
    }

    /// Puts `item` under `key` in place of `old`, the item there now, or removes it when `item` is `nil`.
    private func commit(
        _ item: Item?, replacing old: Item?, at key: TableState.PrimaryKey, in state: inout TableState
    ) {
        if let item { state.store(item, at: key, replacing: old) } else { state.remove(at: key) }
    }
}
