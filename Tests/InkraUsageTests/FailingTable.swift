import SingleTable

/// A table whose every operation fails, as an unreachable DynamoDB would.
struct FailingTable: Table {
    var error = TableError(.serviceUnavailable, "connection refused")

    func getItem(_ request: GetItemRequest) async throws -> GetItemResponse { throw error }
    func batchGetItem(_ request: BatchGetItemRequest) async throws -> BatchGetItemResponse { throw error }
    func putItem(_ request: PutItemRequest) async throws -> WriteItemResponse { throw error }
    func updateItem(_ request: UpdateItemRequest) async throws -> WriteItemResponse { throw error }
    func deleteItem(_ request: DeleteItemRequest) async throws -> WriteItemResponse { throw error }
    func query(_ request: QueryRequest) async throws -> QueryResponse { throw error }
    func scan(_ request: ScanRequest) async throws -> QueryResponse { throw error }
    func transactWriteItems(_ request: TransactWriteItemsRequest) async throws { throw error }
}
