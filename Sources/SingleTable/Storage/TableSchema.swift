/// The key attributes of a table and its global secondary indexes.
package struct TableSchema: Sendable, Hashable {
    /// A key: partition (hash) attribute and optional sort (range) attribute.
    package struct Key: Sendable, Hashable {
        package var partitionKey: String
        package var sortKey: String?

        package init(partitionKey: String, sortKey: String? = nil) {
            self.partitionKey = partitionKey
            self.sortKey = sortKey
        }
    }

    /// A global secondary index projecting all attributes; sparse: items lacking its key are absent.
    package struct Index: Sendable, Hashable {
        package var name: String
        package var key: Key

        package init(name: String, key: Key) {
            self.name = name
            self.key = key
        }
    }

    package var tableName: String
    package var key: Key
    package var indexes: [Index]

    package init(tableName: String, key: Key, indexes: [Index] = []) {
        self.tableName = tableName
        self.key = key
        self.indexes = indexes
    }

    /// The single-table design: String keys `PK`, `SK`; index `GSI1` on `GSI1PK`, `GSI1SK`.
    package static func singleTable(named tableName: String) -> TableSchema {
        TableSchema(
            tableName: tableName,
            key: Key(partitionKey: "PK", sortKey: "SK"),
            indexes: [Index(name: "GSI1", key: Key(partitionKey: "GSI1PK", sortKey: "GSI1SK"))]
        )
    }
}
