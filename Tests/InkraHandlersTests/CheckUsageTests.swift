import Foundation
import InkraHandlers
import InkraJSON
import InkraTesting
import InkraTime
import InkraUsage
import SingleTable
import Testing

@Suite("checkUsage")
struct CheckUsageTests {
    let harness = Harness()

    @Test("Reports every window after two calls, consuming nothing itself")
    func report() async throws {
        let caller = Fixtures.lambdaContext("reader")
        for minute in ["00", "10"] {
            harness.clock.set("2026-03-10T10:\(minute):00Z")
            _ = try await harness.generate(ProxyEvent.rest(body: #"{"topic":"x"}"#, authorizer: caller))
        }
        harness.clock.set("2026-03-10T10:30:00Z")
        let event = ProxyEvent.rest("GET", "/usage", authorizer: caller)
        let reply = try Reply(await harness.checkUsage.handle(event, context: harness.clock.context))
        #expect(reply.statusCode == 200)
        #expect(
            reply.body
                == [
                    "used": 2, "limit": 5, "remaining": 3, "resetDate": "2026-04-01", "tier": "free",
                    "daily": ["used": 2, "limit": 3, "resetAt": "2026-03-11T00:00:00Z"],
                    "hourly": ["used": 2, "limit": 2, "resetAt": "2026-03-10T11:00:00Z"],
                ]
        )
        let again = try Reply(await harness.checkUsage.handle(event, context: harness.clock.context))
        #expect(again.body == reply.body)
    }

    @Test("A new user sees zeroes and no item is written")
    func newUser() async throws {
        let event = ProxyEvent.http("GET", "/usage", authorizer: ["jwt": ["claims": ["sub": "fresh"]]])
        let reply = try Reply(await harness.checkUsage.handle(event, context: harness.clock.context))
        #expect(reply.body["used"] == 0)
        #expect(reply.body["remaining"] == 5)
        #expect(harness.table.snapshot().isEmpty)
    }

    @Test("No identity is 401; a store failure is 503")
    func failures() async throws {
        let anonymous = try Reply(
            await harness.checkUsage.handle(ProxyEvent.rest("GET", "/usage"), context: harness.clock.context))
        #expect(anonymous.statusCode == 401)
        let broken = CheckUsage(
            store: TableUsageStore(table: BrokenTable(), tableName: "inkra-usage")
        )
        let reply = try Reply(
            await broken.handle(
                ProxyEvent.rest("GET", authorizer: Fixtures.lambdaContext("x")),
                context: InvocationContext(time: Timestamp(timeIntervalSince1970: 0)))
        )
        #expect(reply.statusCode == 503)
        #expect(reply.body == ["error": "Usage store unavailable", "code": "unavailable", "retryAfter": 2])
        #expect(reply.headers["Retry-After"] == "2")
    }
}

/// A table that cannot be reached at all.
struct BrokenTable: Table {
    let error = TableError(.serviceUnavailable, "connection refused")
    func getItem(_ request: GetItemRequest) async throws -> GetItemResponse { throw error }
    func batchGetItem(_ request: BatchGetItemRequest) async throws -> BatchGetItemResponse { throw error }
    func putItem(_ request: PutItemRequest) async throws -> WriteItemResponse { throw error }
    func updateItem(_ request: UpdateItemRequest) async throws -> WriteItemResponse { throw error }
    func deleteItem(_ request: DeleteItemRequest) async throws -> WriteItemResponse { throw error }
    func query(_ request: QueryRequest) async throws -> QueryResponse { throw error }
    func scan(_ request: ScanRequest) async throws -> QueryResponse { throw error }
    func transactWriteItems(_ request: TransactWriteItemsRequest) async throws { throw error }
}
