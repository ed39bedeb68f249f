import DynamoDBTable
import Foundation
import InkraJSON
import InkraTime
import SingleTable

/// One table of the local DynamoDB endpoint: the in-memory table and what DescribeTable tells.
struct LocalTable: Sendable {
    var table: InMemoryTable
    /// `AttributeDefinitions`: name → type (`S`, `N`, `B`).
    var attributeTypes: [String: String]
    var created: Timestamp
    var timeToLiveAttribute: String?
    let id = UUID().uuidString.lowercased()

    var schema: TableSchema { table.schema }

    static func arn(_ name: String) -> String { "arn:aws:dynamodb:us-east-1:000000000000:table/\(name)" }

    /// DynamoDB's `TableDescription`.
    func description(status: String = "ACTIVE") -> JSONValue {
        let items = table.snapshot()
        let size = items.reduce(0) { $0 + Wire.item($1).jsonBytes.count }
        var names = [schema.key.partitionKey] + (schema.key.sortKey.map { [$0] } ?? [])
        for index in schema.indexes { names += [index.key.partitionKey] + (index.key.sortKey.map { [$0] } ?? []) }
        var seen: Set<String> = []
        let definitions: [JSONValue] = names.filter { seen.insert($0).inserted }.map {
            ["AttributeName": .string($0), "AttributeType": .string(attributeTypes[$0] ?? "S")]
        }
        var object: JSONObject = [
            "AttributeDefinitions": .array(definitions),
            "TableName": .string(schema.tableName),
            "KeySchema": Self.keySchema(schema.key),
            "TableStatus": .string(status),
            "CreationDateTime": .number(String(format: "%.3f", created.timeIntervalSince1970)),
            "ProvisionedThroughput": ["NumberOfDecreasesToday": 0, "ReadCapacityUnits": 0, "WriteCapacityUnits": 0],
            "TableSizeBytes": .number(size),
            "ItemCount": .number(items.count),
            "TableArn": .string(Self.arn(schema.tableName)),
            "TableId": .string(id),
            "BillingModeSummary": ["BillingMode": "PAY_PER_REQUEST"],
        ]
        if !schema.indexes.isEmpty {
            object["GlobalSecondaryIndexes"] = .array(
                schema.indexes.map { index in
                    let count = items.filter { item in
                        item[index.key.partitionKey] != nil && (index.key.sortKey.map { item[$0] != nil } ?? true)
                    }.count
                    return [
                        "IndexName": .string(index.name), "KeySchema": Self.keySchema(index.key),
                        "Projection": ["ProjectionType": "ALL"], "IndexStatus": .string(status),
                        "ProvisionedThroughput": ["ReadCapacityUnits": 0, "WriteCapacityUnits": 0],
                        "IndexSizeBytes": 0, "ItemCount": .number(count),
                        "IndexArn": .string("\(Self.arn(schema.tableName))/index/\(index.name)"),
                    ]
                })
        }
        return .object(object)
    }

    static func keySchema(_ key: TableSchema.Key) -> JSONValue {
        var elements: [JSONValue] = [["AttributeName": .string(key.partitionKey), "KeyType": "HASH"]]
        if let sort = key.sortKey { elements.append(["AttributeName": .string(sort), "KeyType": "RANGE"]) }
        return .array(elements)
    }

    /// Reads CreateTable's body into a schema and attribute types.
    static func create(_ request: WireRequest, now: @escaping @Sendable () -> Timestamp) throws(TableError)
        -> LocalTable
    {
        let name = try request.tableName
        guard (3...255).contains(name.count),
            name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." })
        else {
            throw WireRequest.invalid(
                "1 validation error detected: Value '\(name)' at 'tableName' failed to satisfy constraint: "
                    + "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+ and have length 3 to 255")
        }
        var types: [String: String] = [:]
        for definition in request.body["AttributeDefinitions"]?.array ?? [] {
            guard let attribute = definition["AttributeName"]?.string, let type = definition["AttributeType"]?.string,
                ["S", "N", "B"].contains(type)
            else { throw WireRequest.invalid("AttributeDefinitions must name attributes of type S, N or B") }
            types[attribute] = type
        }
        let key = try Self.key(request.body["KeySchema"], types: types, owner: "the table")
        var indexes: [TableSchema.Index] = []
        for index in request.body["GlobalSecondaryIndexes"]?.array ?? [] {
            guard let indexName = index["IndexName"]?.string else {
                throw WireRequest.invalid("every GlobalSecondaryIndexes entry needs an IndexName")
            }
            indexes.append(
                TableSchema.Index(
                    name: indexName, key: try Self.key(index["KeySchema"], types: types, owner: "index \(indexName)")))
        }
        let used = Set(
            [key.partitionKey] + (key.sortKey.map { [$0] } ?? [])
                + indexes.flatMap {
                    [$0.key.partitionKey] + ($0.key.sortKey.map { [$0] } ?? [])
                })
        guard used == Set(types.keys) else {
            throw WireRequest.invalid(
                "One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match "
                    + "number of attributes defined in AttributeDefinitions")
        }
        let schema = TableSchema(tableName: name, key: key, indexes: indexes)
        return LocalTable(
            table: InMemoryTable(schema: schema, now: now), attributeTypes: types, created: now(),
            timeToLiveAttribute: nil)
    }

    private static func key(_ json: JSONValue?, types: [String: String], owner: String) throws(TableError)
        -> TableSchema.Key
    {
        let elements = json?.array ?? []
        let hash = elements.first { $0["KeyType"] == "HASH" }?["AttributeName"]?.string
        let range = elements.first { $0["KeyType"] == "RANGE" }?["AttributeName"]?.string
        guard let hash, elements.count == (range == nil ? 1 : 2) else {
            throw WireRequest.invalid("KeySchema of \(owner) must have one HASH key and at most one RANGE key")
        }
        for name in [hash] + (range.map { [$0] } ?? []) where types[name] == nil {
            throw WireRequest.invalid(
                "One or more parameter values were invalid: Some index key attributes are not defined in "
                    + "AttributeDefinitions. Keys: [\(name)], AttributeDefinitions: [\(types.keys.sorted().joined(separator: ", "))]"
            )
        }
        return TableSchema.Key(partitionKey: hash, sortKey: range)
    }
}
