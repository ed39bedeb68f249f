import DynamoDBTable
import Foundation
import InkraTestSupport
import SingleTable

/// A DynamoDB-compatible endpoint for the contract suite (``MotoEndpoint``: named by
/// `INKRA_TEST_DYNAMODB_ENDPOINT`, as `.ci/run` does, or a moto_server from PATH). Without one the
/// suite runs on the in-memory table and the emulator's endpoint only.
enum LiveDynamoDB {
    /// A new table of the single-table design under a unique name, seen by the tests as `contract`.
    static func freshTable() async throws -> any Table {
        let client = try await MotoEndpoint.client()
        let name = "contract-\(UUID().uuidString.prefix(8).lowercased())"
        try await client.createTable(.singleTable(named: name), timeToLiveAttribute: "expiresAt")
        return RenamingTable(base: client, from: contractTable, to: name)
    }
}

/// Sends requests for one table name to another, so each test gets its own DynamoDB table while
/// the suite names it `contract`.
struct RenamingTable: Table {
    let base: any Table
    let from: String
    let to: String

    private func rename(_ name: String) -> String { name == from ? to : name }

    func getItem(_ request: GetItemRequest) async throws -> GetItemResponse {
        var copy = request
        copy.tableName = rename(copy.tableName)
        return try await base.getItem(copy)
    }

    func batchGetItem(_ request: BatchGetItemRequest) async throws -> BatchGetItemResponse {
        var items: [String: KeysAndAttributes] = [:]
        for (name, keys) in request.requestItems { items[rename(name)] = keys }
        let response = try await base.batchGetItem(BatchGetItemRequest(requestItems: items))
        var responses: [String: [Item]] = [:]
        for (name, list) in response.responses { responses[name == to ? from : name] = list }
        return BatchGetItemResponse(responses: responses, unprocessedKeys: response.unprocessedKeys)
    }

    func putItem(_ request: PutItemRequest) async throws -> WriteItemResponse {
        var copy = request
        copy.tableName = rename(copy.tableName)
        return try await base.putItem(copy)
    }

    func updateItem(_ request: UpdateItemRequest) async throws -> WriteItemResponse {
        var copy = request
        copy.tableName = rename(copy.tableName)
        return try await base.updateItem(copy)
    }

    func deleteItem(_ request: DeleteItemRequest) async throws -> WriteItemResponse {
        var copy = request
        copy.tableName = rename(copy.tableName)
        return try await base.deleteItem(copy)
    }

    func query(_ request: QueryRequest) async throws -> QueryResponse {
        var copy = request
        copy.tableName = rename(copy.tableName)
        return try await base.query(copy)
    }

    func scan(_ request: ScanRequest) async throws -> QueryResponse {
        var copy = request
        copy.tableName = rename(copy.tableName)
        return try await base.scan(copy)
    }

    func transactWriteItems(_ request: TransactWriteItemsRequest) async throws {
        let actions = request.transactItems.map { action -> TransactWriteItem in
            switch action {
            case .put(var put):
                put.tableName = rename(put.tableName)
                return .put(put)
            case .update(var update):
                update.tableName = rename(update.tableName)
                return .update(update)
            case .delete(var delete):
                delete.tableName = rename(delete.tableName)
                return .delete(delete)
            case .conditionCheck(var check):
                check.tableName = rename(check.tableName)
                return .conditionCheck(check)
            }
        }
        try await base.transactWriteItems(
            TransactWriteItemsRequest(transactItems: actions, clientRequestToken: request.clientRequestToken))
    }
}
