import SingleTable
import Synchronization

/// Request units a table's callers consumed, as on-demand DynamoDB would charge them.
package struct ConsumedUnits: Sendable, Hashable {
    /// Write request units: the table's and its global secondary indexes'.
    package var write = 0
    /// Of ``write``, the index writes.
    package var indexWrite = 0
    /// Read request units (halves for eventually consistent reads).
    package var read = 0.0
}

/// A ``Table`` that forwards every request to another and counts the request units DynamoDB
/// would have charged for it, by ``ItemSize`` and ``RequestUnits``:
///
/// - A write: units for the larger of the item before and after it (Developer Guide, "DynamoDB
///   read and write operations"); a write whose condition fails still consumes units: for the
///   larger of the item it found and the item a put would have written, at least one (an update's
///   new item is not known, so the item found alone). A transaction: two units per KB of each action's item,
///   condition checks included; a cancelled transaction is not counted.
/// - A write that adds, changes or removes an item in an index (an item with `GSI1PK`, the
///   index of template.yaml, projecting every attribute) adds the same units again for the index;
///   twice when it moves the item from one index key to another (a delete and a put).
/// - A read: `GetItem` and `BatchGetItem` per item asked for (one found or not: a key with no item
///   costs one 4 KB step, as a `GetItem` that finds none), `Query` and `Scan` over the sum of the
///   items returned (the store uses neither filters nor projections), each rounded up to 4 KB.
///
/// Sizes before and after a write are read from the wrapped table, uncounted.
package final class CountingTable: Table {
    /// The wrapped table.
    package let table: any Table
    /// The index key attributes: an item in the index has the first.
    package let indexKey: (partition: String, sort: String)
    private let units = Mutex(ConsumedUnits())

    /// Wraps a table.
    package init(_ table: any Table, indexKey: (partition: String, sort: String) = ("GSI1PK", "GSI1SK")) {
        self.table = table
        self.indexKey = indexKey
    }

    /// What was consumed so far.
    package var consumed: ConsumedUnits { units.withLock { $0 } }

    package func getItem(_ request: GetItemRequest) async throws -> GetItemResponse {
        let response = try await table.getItem(request)
        addRead(bytes: response.item.map(ItemSize.of) ?? 0, consistent: request.consistentRead)
        return response
    }

    package func batchGetItem(_ request: BatchGetItemRequest) async throws -> BatchGetItemResponse {
        let response = try await table.batchGetItem(request)
        // "DynamoDB processes each item in the batch as an individual GetItem request"
        // (read-write-operations.html): a key with no item costs what a GetItem finding none does,
        // one 4 KB step; keys left unprocessed were not read.
        for (name, asked) in request.requestItems {
            let items = response.responses[name] ?? []
            for item in items { addRead(bytes: ItemSize.of(item), consistent: asked.consistentRead) }
            let unprocessed = response.unprocessedKeys[name]?.keys.count ?? 0
            for _ in 0..<max(0, asked.keys.count - items.count - unprocessed) {
                addRead(bytes: 0, consistent: asked.consistentRead)
            }
        }
        return response
    }

    package func query(_ request: QueryRequest) async throws -> QueryResponse {
        let response = try await table.query(request)
        addRead(bytes: response.items.reduce(0) { $0 + ItemSize.of($1) }, consistent: request.consistentRead)
        return response
    }

    package func scan(_ request: ScanRequest) async throws -> QueryResponse {
        let response = try await table.scan(request)
        addRead(bytes: response.items.reduce(0) { $0 + ItemSize.of($1) }, consistent: request.consistentRead)
        return response
    }

    package func putItem(_ request: PutItemRequest) async throws -> WriteItemResponse {
        try await write(tableName: request.tableName, key: key(of: request.item), newItem: request.item) {
            try await self.table.putItem(request)
        }
    }

    package func updateItem(_ request: UpdateItemRequest) async throws -> WriteItemResponse {
        try await write(tableName: request.tableName, key: request.key) { try await self.table.updateItem(request) }
    }

    package func deleteItem(_ request: DeleteItemRequest) async throws -> WriteItemResponse {
        try await write(tableName: request.tableName, key: request.key) { try await self.table.deleteItem(request) }
    }

    package func transactWriteItems(_ request: TransactWriteItemsRequest) async throws {
        var befores: [Item?] = []
        for action in request.transactItems {
            let (tableName, key) = action.target
            befores.append(try await peek(tableName: tableName, key: key))
        }
        try await table.transactWriteItems(request)
        var total = ConsumedUnits()
        for (action, before) in zip(request.transactItems, befores) {
            let (tableName, key) = action.target
            let after: Item?
            if case .conditionCheck = action {
                after = before
            } else {
                after = try await peek(tableName: tableName, key: key)
            }
            total = Self.adding(total, before: before, after: after, indexKey: indexKey, transactional: true)
        }
        addWrites(total)
    }

    // MARK: Counting

    private func write(
        tableName: String, key: Item, newItem: Item? = nil, _ body: () async throws -> WriteItemResponse
    ) async throws -> WriteItemResponse {
        let before = try await peek(tableName: tableName, key: key)
        do {
            let response = try await body()
            let after = try await peek(tableName: tableName, key: key)
            addWrites(Self.adding(ConsumedUnits(), before: before, after: after, indexKey: indexKey))
            return response
        } catch let error as TableError where error.code == .conditionalCheckFailed {
            let size = max(before.map(ItemSize.of) ?? 0, newItem.map(ItemSize.of) ?? 0)
            units.withLock { $0.write += RequestUnits.write(bytes: size) }
            throw error
        }
    }

    /// Units of one written item, its index writes included.
    static func adding(
        _ units: ConsumedUnits, before: Item?, after: Item?, indexKey: (partition: String, sort: String),
        transactional: Bool = false
    ) -> ConsumedUnits {
        var units = units
        let bytes = max(before.map(ItemSize.of) ?? 0, after.map(ItemSize.of) ?? 0)
        let one = RequestUnits.write(bytes: bytes, transactional: transactional)
        units.write += one
        let indexed = { (item: Item?) -> [AttributeValue?]? in
            guard let item, item[indexKey.partition] != nil else { return nil }
            return [item[indexKey.partition], item[indexKey.sort]]
        }
        let (was, now) = (indexed(before), indexed(after))
        let indexWrites: Int
        switch (was, now) {
        case (nil, nil): indexWrites = 0
        case (let old?, let new?): indexWrites = old == new ? 1 : 2
        default: indexWrites = 1
        }
        units.write += indexWrites * one
        units.indexWrite += indexWrites * one
        return units
    }

    private func addWrites(_ sum: ConsumedUnits) {
        units.withLock {
            $0.write += sum.write
            $0.indexWrite += sum.indexWrite
        }
    }

    private func addRead(bytes: Int, consistent: Bool) {
        let read = RequestUnits.read(bytes: bytes, consistent: consistent)
        units.withLock { $0.read += read }
    }

    private func peek(tableName: String, key: Item) async throws -> Item? {
        try await table.getItem(GetItemRequest(tableName: tableName, key: key, consistentRead: true)).item
    }

    private func key(of item: Item) -> Item {
        item.filter { $0.key == "PK" || $0.key == "SK" }
    }
}

extension TransactWriteItem {
    /// The table an action is on, and its item's key (a put's `PK` and `SK`).
    var target: (tableName: String, key: Item) {
        switch self {
        case .put(let put): (put.tableName, put.item.filter { $0.key == "PK" || $0.key == "SK" })
        case .update(let update): (update.tableName, update.key)
        case .delete(let delete): (delete.tableName, delete.key)
        case .conditionCheck(let check): (check.tableName, check.key)
        }
    }
}
