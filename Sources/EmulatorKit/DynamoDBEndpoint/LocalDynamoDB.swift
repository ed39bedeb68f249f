import DynamoDBTable
import Foundation
import InkraJSON
import InkraTime
import SingleTable
import Synchronization

/// A DynamoDB-compatible endpoint (JSON 1.0, `X-Amz-Target: DynamoDB_20120810.<Operation>`)
/// over the emulator's in-memory tables, so `aws dynamodb … --endpoint-url` and boto3 read and
/// change local state: GetItem, BatchGetItem, PutItem, UpdateItem, DeleteItem, Query, Scan,
/// TransactWriteItems, DescribeTable, ListTables, CreateTable, DeleteTable and the time-to-live
/// settings, with DynamoDB's response and error bodies and its `x-amz-crc32` checksum.
package final class LocalDynamoDB: Sendable {
    /// DynamoDB's request size limit.
    package static let requestLimit = 16 << 20

    private let tables: Mutex<[String: LocalTable]>
    private let now: @Sendable () -> Timestamp

    /// An endpoint serving `table` (the emulator's usage table) and any table created through it.
    package init(table: InMemoryTable, now: @escaping @Sendable () -> Timestamp) {
        self.now = now
        let name = table.schema.tableName
        tables = Mutex([
            name: LocalTable(table: table, attributeTypes: [:], created: now(), timeToLiveAttribute: "expiresAt")
        ])
    }

    /// DynamoDB's answer to a request over its size limit.
    package static func requestTooLarge() -> LocalHTTPResponse {
        reply(
            .failure(WireRequest.invalid("Request size exceeds \(requestLimit) bytes")), status: 413)
    }

    /// Answers one HTTP request.
    package func respond(_ request: LocalHTTPRequest) async -> LocalHTTPResponse {
        guard request.method == "POST" else {
            return Self.reply(.failure(TableError(TableError.Code(rawValue: "UnknownOperationException"), "")))
        }
        return await respond(target: request.header("X-Amz-Target"), body: request.body)
    }

    /// Answers one operation: `target` as in `X-Amz-Target`, `body` its JSON.
    package func respond(target: String?, body: [UInt8]) async -> LocalHTTPResponse {
        let prefix = "DynamoDB_20120810."
        guard let target, target.hasPrefix(prefix) else {
            return Self.reply(.failure(TableError(TableError.Code(rawValue: "UnknownOperationException"), "")))
        }
        let operation = String(target.dropFirst(prefix.count))
        do {
            let request = try WireRequest(body)
            return Self.reply(.success(try await perform(operation, request)))
        } catch let error as TableError {
            return Self.reply(.failure(error))
        } catch {
            return Self.reply(.failure(TableError(.internalServerError, "The server encountered an internal error")))
        }
    }

    private func perform(_ operation: String, _ request: WireRequest) async throws -> JSONValue {
        switch operation {
        case "GetItem":
            let get = try request.getItem()
            let answer = try await table(get.tableName).getItem(get)
            return answer.item.map { ["Item": Wire.item($0)] } ?? [:]
        case "PutItem":
            let put = try request.putItem()
            return Self.attributes(try await table(put.tableName).putItem(put))
        case "UpdateItem":
            let update = try request.updateItem()
            return Self.attributes(try await table(update.tableName).updateItem(update))
        case "DeleteItem":
            let delete = try request.deleteItem()
            return Self.attributes(try await table(delete.tableName).deleteItem(delete))
        case "Query":
            let query = try request.query()
            return Self.page(try await table(query.tableName).query(query))
        case "Scan":
            let scan = try request.scan()
            return Self.page(try await table(scan.tableName).scan(scan))
        case "BatchGetItem":
            return try await batchGet(try request.batchGetItem())
        case "TransactWriteItems":
            return try await transact(try request.transactWriteItems())
        default:
            return try manage(operation, request)
        }
    }

    /// The table operations: describe, list, create, delete, time to live.
    private func manage(_ operation: String, _ request: WireRequest) throws -> JSONValue {
        switch operation {
        case "DescribeTable":
            return ["Table": try entry(try request.tableName).description()]
        case "ListTables":
            let start = try request.optionalString("ExclusiveStartTableName")
            let limit = try request.int("Limit") ?? 100
            let names = tables.withLock { $0.keys.sorted() }.filter { start == nil || $0 > start! }
            var answer: JSONObject = ["TableNames": .array(names.prefix(limit).map(JSONValue.string))]
            if names.count > limit, let last = names.prefix(limit).last {
                answer["LastEvaluatedTableName"] = .string(last)
            }
            return .object(answer)
        case "CreateTable":
            let created = try LocalTable.create(request, now: now)
            let name = created.schema.tableName
            try tables.withLock { tables throws(TableError) in
                guard tables[name] == nil else {
                    throw TableError(
                        TableError.Code(rawValue: "ResourceInUseException"), "Table already exists: \(name)")
                }
                tables[name] = created
            }
            return ["TableDescription": created.description()]
        case "DeleteTable":
            let name = try request.tableName
            let removed = try tables.withLock { tables throws(TableError) in
                guard let removed = tables.removeValue(forKey: name) else { throw Self.notFound(name) }
                return removed
            }
            return ["TableDescription": removed.description(status: "DELETING")]
        case "UpdateTimeToLive":
            let name = try request.tableName
            let specification = request.body["TimeToLiveSpecification"]
            guard let attribute = specification?["AttributeName"]?.string, let enabled = specification?["Enabled"]?.bool
            else { throw WireRequest.invalid("TimeToLiveSpecification needs AttributeName and Enabled") }
            try tables.withLock { tables throws(TableError) in
                guard tables[name] != nil else { throw Self.notFound(name) }
                tables[name]?.timeToLiveAttribute = enabled ? attribute : nil
            }
            return ["TimeToLiveSpecification": ["AttributeName": .string(attribute), "Enabled": .bool(enabled)]]
        case "DescribeTimeToLive":
            let attribute = try entry(try request.tableName).timeToLiveAttribute
            var description: JSONObject = ["TimeToLiveStatus": attribute == nil ? "DISABLED" : "ENABLED"]
            if let attribute { description["AttributeName"] = .string(attribute) }
            return ["TimeToLiveDescription": .object(description)]
        default:
            throw TableError(TableError.Code(rawValue: "UnknownOperationException"), "")
        }
    }

    private func batchGet(_ request: BatchGetItemRequest) async throws -> JSONValue {
        guard request.requestItems.values.reduce(0, { $0 + $1.keys.count }) <= 100 else {
            throw WireRequest.invalid("Too many items requested for the BatchGetItem call")
        }
        var responses = JSONObject()
        for (name, keys) in request.requestItems.sorted(by: { $0.key < $1.key }) {
            let answer = try await table(name).batchGetItem(BatchGetItemRequest(requestItems: [name: keys]))
            responses[name] = .array((answer.responses[name] ?? []).map(Wire.item))
        }
        return ["Responses": .object(responses), "UnprocessedKeys": [:]]
    }

    private func transact(_ request: TransactWriteItemsRequest) async throws -> JSONValue {
        let names = Set(request.transactItems.map { $0.target.tableName })
        guard let name = names.first else {
            throw WireRequest.invalid(
                "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: "
                    + "Member must have length greater than or equal to 1")
        }
        guard names.count == 1 else {
            throw WireRequest.invalid("the emulator's DynamoDB endpoint runs a transaction on one table at a time")
        }
        try await table(name).transactWriteItems(request)
        return [:]
    }

    private func entry(_ name: String) throws(TableError) -> LocalTable {
        guard let entry = tables.withLock({ $0[name] }) else { throw Self.notFound(name) }
        return entry
    }

    private func table(_ name: String) throws(TableError) -> InMemoryTable { try entry(name).table }

    private static func notFound(_ name: String) -> TableError {
        TableError(.resourceNotFound, "Requested resource not found: Table: \(name) not found")
    }

    private static func attributes(_ response: WriteItemResponse) -> JSONValue {
        response.attributes.map { ["Attributes": Wire.item($0)] } ?? [:]
    }

    private static func page(_ response: QueryResponse) -> JSONValue {
        var object: JSONObject = [
            "Items": .array(response.items.map(Wire.item)), "Count": .number(response.count),
            "ScannedCount": .number(response.scannedCount),
        ]
        if let last = response.lastEvaluatedKey { object["LastEvaluatedKey"] = Wire.item(last) }
        return .object(object)
    }
}
