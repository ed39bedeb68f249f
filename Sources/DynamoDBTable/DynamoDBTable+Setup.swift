import InkraJSON
import SingleTable

extension DynamoDBTable {
    /// Creates a table (PAY_PER_REQUEST, String keys, global secondary indexes projecting all
    /// attributes), waits until it is active, and turns on TTL.
    /// - Parameters:
    ///   - schema: the table's keys and indexes.
    ///   - timeToLiveAttribute: the TTL attribute, or `nil` for none.
    ///   - ifNotExists: treat "already exists" as success.
    package func createTable(
        _ schema: TableSchema, timeToLiveAttribute: String? = "expiresAt", ifNotExists: Bool = false
    )
        async throws
    {
        var attributes: [String] = [schema.key.partitionKey] + (schema.key.sortKey.map { [$0] } ?? [])
        for index in schema.indexes {
            attributes += [index.key.partitionKey] + (index.key.sortKey.map { [$0] } ?? [])
        }
        var seen: Set<String> = []
        let definitions: [JSONValue] = attributes.filter { seen.insert($0).inserted }.map {
            ["AttributeName": .string($0), "AttributeType": "S"]
        }
        var body: JSONObject = [
            "TableName": .string(schema.tableName),
            "AttributeDefinitions": .array(definitions),
            "KeySchema": Self.keySchema(schema.key),
            "BillingMode": "PAY_PER_REQUEST",
        ]
        if !schema.indexes.isEmpty {
            body["GlobalSecondaryIndexes"] = .array(
                schema.indexes.map { index in
                    [
                        "IndexName": .string(index.name), "KeySchema": Self.keySchema(index.key),
                        "Projection": ["ProjectionType": "ALL"],
                    ]
                }
            )
        }
        let created = await createIfNeeded(.object(body))
        switch created {
        case .failure(let error) where ifNotExists && error.code.rawValue == "ResourceInUseException":
            return
        case .failure(let error) where error.followsUnknownOutcome && error.code.rawValue == "ResourceInUseException":
            // An attempt timed out after the table took it: this call created the table.
            break
        case .failure(let error):
            throw error
        case .success:
            break
        }
        try await waitUntilActive(schema.tableName)
        if let timeToLiveAttribute {
            _ = try await call(
                "UpdateTimeToLive",
                [
                    "TableName": .string(schema.tableName),
                    "TimeToLiveSpecification": ["Enabled": true, "AttributeName": .string(timeToLiveAttribute)],
                ]
            )
        }
    }

    private func createIfNeeded(_ body: JSONValue) async -> Result<JSONValue, TableError> {
        do {
            return .success(try await call("CreateTable", body))
        } catch {
            return .failure(error)
        }
    }

    /// The table's description (`DescribeTable`'s `Table`).
    package func describeTable(named name: String) async throws -> JSONValue {
        try await call("DescribeTable", ["TableName": .string(name)])["Table"] ?? .null
    }

    /// The TTL attribute, when TTL is enabled.
    package func timeToLiveAttribute(of name: String) async throws -> String? {
        let answer = try await call("DescribeTimeToLive", ["TableName": .string(name)])
        return answer["TimeToLiveDescription"]?["AttributeName"]?.string
    }

    private static func keySchema(_ key: TableSchema.Key) -> JSONValue {
        var elements: [JSONValue] = [["AttributeName": .string(key.partitionKey), "KeyType": "HASH"]]
        if let sort = key.sortKey { elements.append(["AttributeName": .string(sort), "KeyType": "RANGE"]) }
        return .array(elements)
    }

    private func waitUntilActive(_ name: String) async throws {
        for _ in 0..<100 {
            if try await describeTable(named: name)["TableStatus"]?.string == "ACTIVE" { return }
            try await sleep(0.1)
        }
        throw TableError(.serviceUnavailable, "table \(name) did not become ACTIVE")
    }
}
