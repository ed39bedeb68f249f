/// The key attributes of a table and its global secondary indexes.
public struct TableSchema: Sendable, Hashable {
    /// A key: partition (hash) attribute and optional sort (range) attribute.
    public struct Key: Sendable, Hashable {
        public var partitionKey: String
        public var sortKey: String?

        public init(partitionKey: String, sortKey: String? = nil) {
            self.partitionKey = partitionKey
            self.sortKey = sortKey
        }
    }

    /// A global secondary index projecting all attributes; sparse: items lacking its key are absent.
    public struct Index: Sendable, Hashable {
        public var name: String
        public var key: Key

        public init(name: String, key: Key) {
            self.name = name
            self.key = key
        }
    }

    public var tableName: String
    public var key: Key
    public var indexes: [Index]

    public init(tableName: String, key: Key, indexes: [Index] = []) {
        self.tableName = tableName
        self.key = key
        self.indexes = indexes
    }

    /// The single-table design: String keys `PK`, `SK`; index `GSI1` on `GSI1PK`, `GSI1SK`.
    public static func singleTable(named tableName: String) -> TableSchema {
        TableSchema(
            tableName: tableName,
            key: Key(partitionKey: "PK", sortKey: "SK"),
            indexes: [Index(name: "GSI1", key: Key(partitionKey: "GSI1PK", sortKey: "GSI1SK"))]
        )
    }
}
