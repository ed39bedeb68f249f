import InkraTime

/// The items of an in-memory table: partitions ordered by sort key, and each global secondary
/// index as partitions of (index sort key, table key) entries. Not thread-safe: the table guards it.
struct TableState {
    /// A primary key.
    struct PrimaryKey: Hashable {
        var partition: KeyValue
        var sort: KeyValue?

        /// The key as an item of its key attributes, named as the schema's key names them.
        func item(named names: TableSchema.Key) -> Item {
            var item = Item(minimumCapacity: 2)
            item[names.partitionKey] = partition.value
            if let sortName = names.sortKey, let sort { item[sortName] = sort.value }
            return item
        }
    }

    /// One entry of an index partition.
    struct IndexEntry {
        var sort: KeyValue?
        var key: PrimaryKey

        func precedes(_ other: IndexEntry) -> Bool {
            if sort != other.sort { return Self.less(sort, other.sort) }
            if key.partition != other.key.partition { return key.partition < other.key.partition }
            return Self.less(key.sort, other.key.sort)
        }

        static func less(_ a: KeyValue?, _ b: KeyValue?) -> Bool {
            switch (a, b) {
            case (nil, nil): false
            case (nil, _): true
            case (_, nil): false
            case (let x?, let y?): x < y
            }
        }
    }

    let schema: TableSchema
    private(set) var partitions: [KeyValue: [(sort: KeyValue?, item: Item)]] = [:]
    private(set) var indexes: [String: [KeyValue: [IndexEntry]]] = [:]
    private(set) var count = 0
    /// Client request tokens of the last ten minutes' transactions, each with its request's hash
    /// (enough to tell a repeat from a different request under the same token, with a chance of
    /// one in 2⁶⁴ of mistaking one for the other) rather than the request: a replay runs tens of
    /// thousands of transactions a minute, and holding each request for ten minutes took 28 MB of
    /// a million-event replay's 66.
    private(set) var tokens: [String: (fingerprint: Int, at: Timestamp)] = [:]
    /// The same tokens in the order they were used, from `tokenHead` on, so expiry looks only at
    /// the oldest.
    private var tokenOrder: [(token: String, at: Timestamp)] = []
    private var tokenHead = 0

    init(schema: TableSchema) {
        self.schema = schema
        for index in schema.indexes { indexes[index.name] = [:] }
    }

    /// Remembers a transaction's client request token, with its request's hash.
    mutating func remember(_ token: String, fingerprint: Int, at instant: Timestamp) {
        tokens[token] = (fingerprint, instant)
        tokenOrder.append((token, instant))
    }

    /// Forgets the tokens used at or before an instant (a token is valid for ten minutes), oldest first:
    /// amortized constant time per transaction, however many tokens are held.
    mutating func expireTokens(before limit: Timestamp) {
        while tokenHead < tokenOrder.count, tokenOrder[tokenHead].at <= limit {
            let oldest = tokenOrder[tokenHead]
            tokenHead += 1
            if let held = tokens[oldest.token], held.at == oldest.at { tokens[oldest.token] = nil }
        }
        if tokenHead > 1_024 && tokenHead * 2 > tokenOrder.count {
            tokenOrder.removeFirst(tokenHead)
            tokenHead = 0
        }
    }

    /// The primary key of an item or key map.
    /// - Throws: ``TableError`` when a key attribute is missing or not S, N or B.
    func primaryKey(of item: Item, exact: Bool) throws(TableError) -> PrimaryKey {
        try Self.primaryKey(of: item, exact: exact, schema: schema)
    }

    /// The primary key of an item or key map under a schema.
    static func primaryKey(of item: Item, exact: Bool, schema: TableSchema) throws(TableError) -> PrimaryKey {
        if exact && item.count != (schema.key.sortKey == nil ? 1 : 2) {
            throw TableError(.validation, "The provided key element does not match the schema")
        }
        func key(_ name: String) throws(TableError) -> KeyValue {
            guard let value = item[name] else {
                if exact { throw TableError(.validation, "The provided key element does not match the schema") }
                throw TableError(
                    .validation, "One or more parameter values were invalid: Missing the key \(name) in the item")
            }
            switch value {
            case .s(""), .b([]):
                throw TableError(
                    .validation,
                    "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: \(name)"
                )
            case .s, .n, .b:
                return KeyValue(value: value)
            default:
                throw TableError(
                    .validation,
                    "One or more parameter values were invalid: Type mismatch for key \(name) expected: S actual: \(value.typeName)"
                )
            }
        }
        return PrimaryKey(
            partition: try key(schema.key.partitionKey),
            sort: try schema.key.sortKey.map { name throws(TableError) in try key(name) })
    }

    /// The item under a key.
    func item(at key: PrimaryKey) -> Item? {
        guard let entries = partitions[key.partition], let position = Self.find(key.sort, in: entries) else {
            return nil
        }
        return entries[position].item
    }

    /// Stores an item (replacing the one under its key), keeping the indexes in step.
    mutating func store(_ item: Item, at key: PrimaryKey) {
        store(item, at: key, replacing: self.item(at: key))
    }

    /// Stores an item in place of `old`, the item under its key now (`nil` for none).
    mutating func store(_ item: Item, at key: PrimaryKey, replacing old: Item?) {
        // Changed in place through the dictionary's accessor: a copy of the partition would cost
        // a copy of every item in it per write.
        let inserted = Self.upsert(item, sort: key.sort, in: &partitions[key.partition, default: []])
        if inserted { count += 1 }
        for index in schema.indexes {
            let before = old.flatMap { Self.indexEntry($0, key, index) }
            let after = Self.indexEntry(item, key, index)
            // Most writes leave an item's index keys as they were (a refused user's counter, say,
            // under a day's refusal-index partition of thousands): its entry stays where it is.
            if before?.0 == after?.0, before?.1.sort == after?.1.sort { continue }
            if let before { unindex(before, key, index) }
            if let after { Self.insertSorted(after.1, in: &indexes[index.name, default: [:]][after.0, default: []]) }
        }
    }

    /// Removes the item under a key.
    mutating func remove(at key: PrimaryKey) {
        guard let entries = partitions[key.partition], let position = Self.find(key.sort, in: entries) else { return }
        unindex(entries[position].item, key)
        partitions[key.partition]?.remove(at: position)
        count -= 1
        if partitions[key.partition]?.isEmpty == true { partitions[key.partition] = nil }
    }

    /// Removes every item.
    mutating func removeAll() {
        partitions.removeAll()
        for name in indexes.keys { indexes[name] = [:] }
        count = 0
    }

    private mutating func unindex(_ item: Item, _ key: PrimaryKey) {
        for index in schema.indexes {
            guard let entry = Self.indexEntry(item, key, index) else { continue }
            unindex(entry, key, index)
        }
    }

    /// Removes an item's entry from one index.
    private mutating func unindex(_ entry: (KeyValue, IndexEntry), _ key: PrimaryKey, _ index: TableSchema.Index) {
        guard indexes[index.name]?[entry.0] != nil else { return }
        indexes[index.name]?[entry.0]?.removeAll { $0.key == key }
        if indexes[index.name]?[entry.0]?.isEmpty == true { indexes[index.name]?[entry.0] = nil }
    }

    /// An item's place in a sparse index: absent unless it has the index's key attributes (S, N or B).
    private static func indexEntry(_ item: Item, _ key: PrimaryKey, _ index: TableSchema.Index) -> (
        KeyValue, IndexEntry
    )? {
        func keyValue(_ name: String) -> KeyValue? {
            switch item[name] {
            case .s(let text)? where !text.isEmpty: KeyValue(value: .s(text))
            case .n(let number)?: KeyValue(value: .n(number))
            case .b(let data)? where !data.isEmpty: KeyValue(value: .b(data))
            default: nil
            }
        }
        guard let partition = keyValue(index.key.partitionKey) else { return nil }
        var sort: KeyValue?
        if let name = index.key.sortKey {
            guard let value = keyValue(name) else { return nil }
            sort = value
        }
        return (partition, IndexEntry(sort: sort, key: key))
    }

    /// Puts an index entry in its place in the list, in place.
    private static func insertSorted(_ entry: IndexEntry, in list: inout [IndexEntry]) {
        list.insert(entry, at: list.firstIndex { !$0.precedes(entry) } ?? list.count)
    }

    /// Puts an item in its partition's sorted entries, replacing the one with its sort key.
    /// - Returns: whether the item is new (none had its key).
    private static func upsert(_ item: Item, sort: KeyValue?, in entries: inout [(sort: KeyValue?, item: Item)]) -> Bool
    {
        let position = insertionPoint(sort, in: entries)
        if position < entries.count && entries[position].sort == sort {
            entries[position].item = item
            return false
        }
        entries.insert((sort, item), at: position)
        return true
    }

    static func insertionPoint(_ sort: KeyValue?, in entries: [(sort: KeyValue?, item: Item)]) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if IndexEntry.less(entries[middle].sort, sort) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    static func find(_ sort: KeyValue?, in entries: [(sort: KeyValue?, item: Item)]) -> Int? {
        let position = insertionPoint(sort, in: entries)
        return position < entries.count && entries[position].sort == sort ? position : nil
    }
}
