import InkraTime

/// A DynamoDB-like table, addressed with DynamoDB's own request shapes.
///
/// Every implementation throws ``TableError`` values with DynamoDB's error names, so code written
/// against `Table` behaves the same on the in-memory table and on DynamoDB. Every operation is
/// atomic.
///
/// A table is `RequestBound`: a client of a remote table bound to a request's scope cuts its
/// attempts to the request's deadline and records its calls in the request's trace; a table in
/// memory, which never waits, is itself in any scope.
package protocol Table: RequestBound {
    /// Reads one item by its key.
    func getItem(_ request: GetItemRequest) async throws -> GetItemResponse
    /// Reads up to 100 items by key in one request.
    func batchGetItem(_ request: BatchGetItemRequest) async throws -> BatchGetItemResponse
    /// Writes a whole item, replacing any item under its key, if the condition holds.
    func putItem(_ request: PutItemRequest) async throws -> WriteItemResponse
    /// Changes an item's attributes (creating it if needed), if the condition holds.
    func updateItem(_ request: UpdateItemRequest) async throws -> WriteItemResponse
    /// Deletes an item, if the condition holds.
    func deleteItem(_ request: DeleteItemRequest) async throws -> WriteItemResponse
    /// Reads the items of one partition of the table or of an index, in sort-key order.
    func query(_ request: QueryRequest) async throws -> QueryResponse
    /// Reads every item of the table or of an index.
    func scan(_ request: ScanRequest) async throws -> QueryResponse
    /// Applies every action or none.
    func transactWriteItems(_ request: TransactWriteItemsRequest) async throws
}

extension Table {
    /// The table itself: a table that never waits has nothing to bound.
    package func bound(to scope: RequestScope) -> Self { self }
}
