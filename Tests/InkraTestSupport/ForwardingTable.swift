import SingleTable

/// A test's `Table` that changes a few operations of another: each operation it does not write
/// itself goes to `base` as it is. The stand-ins of a failing or throttled DynamoDB (failing,
/// throttled, conflicting, read-only tables) write only the operations they change.
package protocol ForwardingTable: Table {
    /// The table the other operations go to.
    var base: InMemoryTable { get }
}

extension ForwardingTable {
    package func getItem(_ request: GetItemRequest) async throws -> GetItemResponse {
        try await base.getItem(request)
    }
    package func batchGetItem(_ request: BatchGetItemRequest) async throws -> BatchGetItemResponse {
        try await base.batchGetItem(request)
    }
    package func putItem(_ request: PutItemRequest) async throws -> WriteItemResponse {
        try await base.putItem(request)
    }
    package func updateItem(_ request: UpdateItemRequest) async throws -> WriteItemResponse {
        try await base.updateItem(request)
    }
    package func deleteItem(_ request: DeleteItemRequest) async throws -> WriteItemResponse {
        try await base.deleteItem(request)
    }
    package func query(_ request: QueryRequest) async throws -> QueryResponse { try await base.query(request) }
    package func scan(_ request: ScanRequest) async throws -> QueryResponse { try await base.scan(request) }
    package func transactWriteItems(_ request: TransactWriteItemsRequest) async throws {
        try await base.transactWriteItems(request)
    }
}
