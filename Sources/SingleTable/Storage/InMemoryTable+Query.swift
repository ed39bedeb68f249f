import Synchronization

extension InMemoryTable {
    package func query(_ request: QueryRequest) async throws -> QueryResponse {
        try select(
            Selection(
                tableName: request.tableName, indexName: request.indexName,
                keyCondition: request.keyConditionExpression, filter: request.filterExpression,
                projection: request.projectionExpression, attributes: request.expressionAttributes,
                forward: request.scanIndexForward, limit: request.limit, start: request.exclusiveStartKey))
    }

    package func scan(_ request: ScanRequest) async throws -> QueryResponse {
        try select(
            Selection(
                tableName: request.tableName, indexName: request.indexName, keyCondition: nil,
                filter: request.filterExpression, projection: request.projectionExpression,
                attributes: request.expressionAttributes, forward: true, limit: request.limit,
                start: request.exclusiveStartKey))
    }

    /// What a query (with a key condition) and a scan (without one) ask for.
    private struct Selection {
        var tableName: String
        var indexName: String?
        var keyCondition: String?
        var filter: String?
        var projection: String?
        var attributes: ExpressionAttributes
        var forward: Bool
        var limit: Int?
        var start: Item?
    }

    /// A row as a query or scan reads it: the item, its sort key in the index read, its position.
    private typealias Row = (item: Item, sort: KeyValue?, position: IndexPosition)

    /// A query or a scan: the request checked in the order DynamoDB checks it, the rows read
    /// (the key condition's partition, or every partition), then one page of them.
    private func select(_ selection: Selection) throws(TableError) -> QueryResponse {
        try checkTable(selection.tableName)
        let keySchema = try self.keySchema(selection.indexName)
        let keyCondition = try selection.keyCondition.map { text throws(TableError) in
            try expressions.condition(text, kind: "KeyConditionExpression")
        }
        let filter = try selection.filter.map { text throws(TableError) in
            try expressions.condition(text, kind: "FilterExpression")
        }
        let projection = try selection.projection.map { text throws(TableError) in
            try expressions.projection(text)
        }
        let names = selection.attributes.names
        let values = selection.attributes.values
        try ExpressionContext.checkPlaceholders(
            used: [keyCondition?.placeholders, filter?.placeholders, projection?.placeholders],
            names: names, values: values)
        let context = ExpressionContext(names: names, values: values)
        let key = try keyCondition.map { condition throws(TableError) in
            try KeyConditionReader.read(condition.tree, keySchema, context)
        }
        if let limit = selection.limit, limit < 1 {
            throw TableError(
                .validation,
                "1 validation error detected: Value at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"
            )
        }
        let index = selection.indexName
        var rows: [Row]
        if let key {
            let partition = KeyValue(value: key.partition)
            rows = state.withLock { state in self.rows(in: state, index: index, partition: partition) }
            rows.removeAll { !key.matchesSort($0.sort) }
            if !selection.forward { rows.reverse() }
        } else {
            rows = state.withLock { state in
                let partitions = index.map { state.indexes[$0]?.keys.sorted() ?? [] } ?? state.partitions.keys.sorted()
                return partitions.flatMap { self.rows(in: state, index: index, partition: $0) }
            }
        }
        return try page(rows, selection, filter: filter?.tree, projection: projection?.tree, context: context)
    }

    /// A row's place, for pagination: the index entry's keys, or the table key.
    struct IndexPosition: Hashable {
        var indexPartition: KeyValue?
        var indexSort: KeyValue?
        var key: TableState.PrimaryKey
    }

    private func keySchema(_ indexName: String?) throws(TableError) -> TableSchema.Key {
        guard let indexName else { return schema.key }
        guard let index = schema.indexes.first(where: { $0.name == indexName }) else {
            throw TableError(.validation, "The table does not have the specified index: \(indexName)")
        }
        return index.key
    }

    private func rows(in state: TableState, index: String?, partition: KeyValue) -> [Row] {
        if let index {
            return (state.indexes[index]?[partition] ?? []).compactMap { entry in
                guard let item = state.item(at: entry.key) else { return nil }
                return (
                    item, entry.sort, IndexPosition(indexPartition: partition, indexSort: entry.sort, key: entry.key)
                )
            }
        }
        return (state.partitions[partition] ?? []).map { entry in
            (entry.item, entry.sort, IndexPosition(key: TableState.PrimaryKey(partition: partition, sort: entry.sort)))
        }
    }

    /// One page of the rows: from just after the start key (or where it would be, when its item
    /// is gone), up to the limit, filtered and projected, with the key to go on from.
    private func page(
        _ rows: [Row], _ selection: Selection, filter: Condition?, projection: [DocumentPath]?,
        context: ExpressionContext
    ) throws(TableError) -> QueryResponse {
        let indexName = selection.indexName
        var first = 0
        if let start = selection.start {
            let position = try startPosition(start, indexName: indexName)
            if let found = rows.firstIndex(where: { $0.position == position }) {
                first = found + 1
            } else {
                first = rows.firstIndex { Self.after($0.position, position, forward: selection.forward) } ?? rows.count
            }
        }
        let end = selection.limit.map { $0 < rows.count - first ? first + $0 : rows.count } ?? rows.count
        var items: [Item] = []
        for row in rows[first..<end] {
            if let filter, try !ConditionEvaluator.evaluate(filter, row.item, context) { continue }
            items.append(try Projection.apply(projection, to: row.item, context))
        }
        var lastKey: Item?
        if end < rows.count, end > first {
            lastKey = evaluatedKey(rows[end - 1], indexName: indexName)
        }
        return QueryResponse(items: items, scannedCount: end - first, lastEvaluatedKey: lastKey)
    }

    private func evaluatedKey(_ row: Row, indexName: String?) -> Item {
        var key = row.position.key.item(named: schema.key)
        if let indexName, let index = schema.indexes.first(where: { $0.name == indexName }) {
            if let partition = row.position.indexPartition { key[index.key.partitionKey] = partition.value }
            if let sortName = index.key.sortKey, let sort = row.position.indexSort { key[sortName] = sort.value }
        }
        return key
    }

    private func startPosition(_ start: Item, indexName: String?) throws(TableError) -> IndexPosition {
        let key = try TableState.primaryKey(of: start, exact: false, schema: schema)
        guard let indexName, let index = schema.indexes.first(where: { $0.name == indexName }) else {
            return IndexPosition(key: key)
        }
        let partition = start[index.key.partitionKey].map(KeyValue.init)
        let sort = index.key.sortKey.flatMap { start[$0] }.map(KeyValue.init)
        guard partition != nil else {
            throw TableError(
                .validation, "The provided starting key is invalid: The provided key element does not match the schema")
        }
        return IndexPosition(indexPartition: partition, indexSort: sort, key: key)
    }

    /// Whether a row comes after a start position that is no longer in the table.
    private static func after(_ row: IndexPosition, _ start: IndexPosition, forward: Bool) -> Bool {
        func tuple(_ p: IndexPosition) -> [KeyValue?] {
            [p.indexPartition, p.indexSort, p.key.partition, p.key.sort]
        }
        for (a, b) in zip(tuple(row), tuple(start)) where a != b {
            let less = TableState.IndexEntry.less(a, b)
            return forward ? !less : less
        }
        return false
    }
}

/// Reads a key condition into the partition value and a sort-key test.
struct KeyConditionReader {
    var partition: AttributeValue
    var sortTest: (@Sendable (KeyValue?) -> Bool)?

    func matchesSort(_ sort: KeyValue?) -> Bool { sortTest.map { $0(sort) } ?? true }

    static func read(_ condition: Condition, _ key: TableSchema.Key, _ context: ExpressionContext) throws(TableError)
        -> KeyConditionReader
    {
        var parts: [Condition] = []
        func flatten(_ condition: Condition) {
            if case .and(let a, let b) = condition {
                flatten(a)
                flatten(b)
            } else {
                parts.append(condition)
            }
        }
        flatten(condition)
        var partition: AttributeValue?
        var sortTest: (@Sendable (KeyValue?) -> Bool)?
        for part in parts {
            let (name, test, equalValue) = try sortOrEquality(part, context)
            if name == key.partitionKey, let equalValue, partition == nil {
                partition = equalValue
            } else if name == key.sortKey, sortTest == nil {
                sortTest = test
            } else {
                throw unsupported()
            }
        }
        guard let partition else { throw unsupported() }
        return KeyConditionReader(partition: partition, sortTest: sortTest)
    }

    private static func sortOrEquality(_ part: Condition, _ context: ExpressionContext) throws(TableError)
        -> (String, @Sendable (KeyValue?) -> Bool, AttributeValue?)
    {
        func name(_ operand: Operand) throws(TableError) -> String {
            guard case .path(let path) = operand, path.elements.count == 1, case .name(let raw) = path.elements[0]
            else {
                throw unsupported()
            }
            return try context.name(raw)
        }
        func value(_ operand: Operand) throws(TableError) -> AttributeValue {
            guard case .value(let placeholder) = operand else { throw unsupported() }
            return try context.value(placeholder)
        }
        let attribute: String
        var equalValue: AttributeValue?
        switch part {
        case .compare(let left, let comparator, let right):
            guard comparator != .notEqual else { throw unsupported() }
            attribute = try name(left)
            let bound = try value(right)
            if comparator == .equal { equalValue = bound }
        case .between(let subject, let low, let high):
            attribute = try name(subject)
            _ = (try value(low), try value(high))
        case .beginsWith(let subject, let prefix):
            attribute = try name(subject)
            _ = try value(prefix)
        default:
            throw unsupported()
        }
        // The sort key is tested as the condition tests an item holding only it; a BETWEEN whose
        // bounds are out of order matches nothing.
        let test: @Sendable (KeyValue?) -> Bool = { sort in
            guard let sort else { return false }
            return (try? ConditionEvaluator.evaluate(part, [attribute: sort.value], context)) ?? false
        }
        return (attribute, test, equalValue)
    }

    private static func unsupported() -> TableError {
        TableError(.validation, "Query key condition not supported")
    }
}
