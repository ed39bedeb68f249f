import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTesting
import InkraTime
import InkraUsage
import SingleTable

/// One in-memory table, the usage store over it, and the two proxy functions, on a manual clock.
struct Harness {
    let table = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
    let clock: ManualClock
    var generator: any QuestionGenerator = TemplateQuestionGenerator(seed: 7)

    init(at start: String = "2026-03-10T10:00:00Z") {
        clock = ManualClock(start)
    }

    var store: TableUsageStore { TableUsageStore(table: table, tableName: "inkra-usage") }

    var generateQuestions: GenerateQuestions {
        GenerateQuestions(store: store, generator: generator)
    }

    var checkUsage: CheckUsage { CheckUsage(store: store) }

    /// Calls `generateQuestions` at the clock's time, with a deadline when given, and returns the
    /// proxy response.
    func generate(_ event: JSONValue, deadline: ContinuousClock.Instant? = nil) async throws -> Reply {
        try Reply(
            await generateQuestions.handle(event, context: InvocationContext(time: clock.now, deadline: deadline)))
    }

    func item(_ pk: String, _ sk: String) async throws -> Item? {
        try await table.getItem(GetItemRequest(tableName: "inkra-usage", key: ["PK": .s(pk), "SK": .s(sk)])).item
    }
}

/// A proxy response, with its body parsed.
typealias Reply = ProxyResult

/// A table that reads but cannot write, as a throttled or failing DynamoDB.
struct ReadOnlyTable: ForwardingTable {
    let base: InMemoryTable
    let error = TableError(.internalServerError, "Internal server error")

    func putItem(_ request: PutItemRequest) async throws -> WriteItemResponse { throw error }
    func updateItem(_ request: UpdateItemRequest) async throws -> WriteItemResponse { throw error }
    func deleteItem(_ request: DeleteItemRequest) async throws -> WriteItemResponse { throw error }
    func transactWriteItems(_ request: TransactWriteItemsRequest) async throws { throw error }
}
