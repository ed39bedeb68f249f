import Foundation
import InkraTime
import SingleTable
import Synchronization

/// An in-memory table that behaves as `DynamoDBTable` does at the deadline — nothing is sent once
/// the deadline of the request it is bound to has passed — and fails the operations a test names,
/// counting every call (of every copy bound to a request). The in-memory table alone ignores deadlines and never fails, so it cannot show a
/// clean-up that is refused for want of time.
final class FaultyTable: Table {
    let base: InMemoryTable
    /// Decides, per operation name and its call number (from 1), whether it fails.
    private let fault: @Sendable (String, Int) -> TableError?
    /// Decides, per update, whether it fails: for a fault that is one write by what it writes,
    /// whatever else the call wrote before it.
    private let updateFault: @Sendable (UpdateItemRequest) -> TableError?
    private let calls: Calls
    /// The request the calls are made for.
    private let scope: RequestScope

    /// The calls of a table and of its copies bound to requests.
    private final class Calls: Sendable {
        let counts = Mutex([String: Int]())
    }

    init(
        fault: @escaping @Sendable (String, Int) -> TableError? = { _, _ in nil },
        updateFault: @escaping @Sendable (UpdateItemRequest) -> TableError? = { _ in nil }
    ) {
        base = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
        self.fault = fault
        self.updateFault = updateFault
        calls = Calls()
        scope = RequestScope()
    }

    private init(_ table: FaultyTable, scope: RequestScope) {
        base = table.base
        fault = table.fault
        updateFault = table.updateFault
        calls = table.calls
        self.scope = scope
    }

    func bound(to scope: RequestScope) -> FaultyTable { FaultyTable(self, scope: scope) }

    /// How many times an operation was called.
    func count(_ operation: String) -> Int { calls.counts.withLock { $0[operation] ?? 0 } }

    private func enter(_ operation: String) throws -> Int {
        // Counted first: an operation refused here was still asked for.
        let number = calls.counts.withLock { counts in
            counts[operation, default: 0] += 1
            return counts[operation]!
        }
        if scope.hasPassed() {
            throw TableError(.serviceUnavailable, "\(operation) was not sent: the request's deadline has passed")
        }
        if let error = fault(operation, number) { throw error }
        return number
    }

    func getItem(_ request: GetItemRequest) async throws -> GetItemResponse {
        _ = try enter("GetItem")
        return try await base.getItem(request)
    }
    func batchGetItem(_ request: BatchGetItemRequest) async throws -> BatchGetItemResponse {
        _ = try enter("BatchGetItem")
        return try await base.batchGetItem(request)
    }
    func putItem(_ request: PutItemRequest) async throws -> WriteItemResponse {
        _ = try enter("PutItem")
        return try await base.putItem(request)
    }
    func updateItem(_ request: UpdateItemRequest) async throws -> WriteItemResponse {
        _ = try enter("UpdateItem")
        if let error = updateFault(request) { throw error }
        return try await base.updateItem(request)
    }
    func deleteItem(_ request: DeleteItemRequest) async throws -> WriteItemResponse {
        _ = try enter("DeleteItem")
        return try await base.deleteItem(request)
    }
    func query(_ request: QueryRequest) async throws -> QueryResponse {
        _ = try enter("Query")
        return try await base.query(request)
    }
    func scan(_ request: ScanRequest) async throws -> QueryResponse {
        _ = try enter("Scan")
        return try await base.scan(request)
    }
    func transactWriteItems(_ request: TransactWriteItemsRequest) async throws {
        _ = try enter("TransactWriteItems")
        try await base.transactWriteItems(request)
    }
}
