import AWSServices
import DynamoDBTable
import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime
import InkraUsage
import SingleTable
import Testing

/// Counts the operations sent through a real transport.
final class CountingTransport: DynamoDBTransport, @unchecked Sendable {
    let base: any DynamoDBTransport
    private let lock = NSLock()
    private var operations: [String] = []

    init(base: any DynamoDBTransport) { self.base = base }

    func send(_ request: DynamoDBHTTPRequest) async throws -> DynamoDBHTTPResponse {
        lock.withLock { operations.append(request.operation) }
        return try await base.send(request)
    }

    func take() -> [String] {
        lock.withLock {
            defer { operations.removeAll() }
            return operations
        }
    }
}

enum Live {
    static func table(_ transport: any DynamoDBTransport = HTTPClientTransport()) async throws -> DynamoDBTable {
        try await MotoEndpoint.client(transport: transport)
    }

    /// A fresh table of docs/table.md under a unique name.
    static func makeLiveTable(
        name: String = "inkra-\(UUID().uuidString.prefix(8).lowercased())",
        transport: any DynamoDBTransport = HTTPClientTransport()
    )
        async throws -> (DynamoDBTable, String)
    {
        let table = try await table(transport)
        try await table.createTable(.singleTable(named: name), timeToLiveAttribute: "expiresAt")
        return (table, name)
    }
}

/// Tests against a DynamoDB-compatible server (moto_server in CI). They need
/// `INKRA_TEST_DYNAMODB_ENDPOINT`; without it they are reported as skipped, by name.
@Suite("Live DynamoDB (moto)", .enabled(if: MotoEndpoint.isAvailable, Comment(rawValue: MotoEndpoint.skipReason)))
struct LiveTests {
    @Test("The table of docs/table.md is created with GSI1 and TTL on expiresAt")
    func setup() async throws {
        let (table, name) = try await Live.makeLiveTable()
        let description = try await table.describeTable(named: name)
        #expect(description["TableStatus"] == "ACTIVE")
        #expect(description["GlobalSecondaryIndexes"]?.array?.first?["IndexName"] == "GSI1")
        #expect(try await table.timeToLiveAttribute(of: name) == "expiresAt")
        try await table.createTable(.singleTable(named: name), ifNotExists: true)
    }

    @Test("generateQuestions costs one write (two with an idempotency key); checkUsage one read")
    func roundTrips() async throws {
        let counting = CountingTransport(base: HTTPClientTransport())
        let (table, name) = try await Live.makeLiveTable(transport: counting)
        _ = counting.take()
        let store = TableUsageStore(table: table, tableName: name)
        let now: @Sendable () -> Timestamp = { Timestamp(timeIntervalSince1970: 1_800_000_000) }
        let generate = GenerateQuestions(store: store, generator: TemplateQuestionGenerator())
        let check = CheckUsage(store: store)
        let caller: JSONValue = ["principalId": "rt", "userId": "rt", "tier": "free"]
        var event: JSONValue = [
            "httpMethod": "POST", "body": #"{"topic":"round trips"}"#, "requestContext": ["authorizer": caller],
        ]
        let first = try await generate.handle(event, context: InvocationContext(time: now()))
        #expect(first["statusCode"] == 200)
        let writes: Set<String> = ["PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"]
        let plain = counting.take()
        #expect(plain.filter(writes.contains) == ["TransactWriteItems"])
        event.set(["Idempotency-Key": "rt-1"], at: ["headers"])
        _ = try await generate.handle(event, context: InvocationContext(time: now()))
        #expect(counting.take().filter(writes.contains) == ["TransactWriteItems", "UpdateItem"])
        let usage = try await check.handle(
            ["httpMethod": "GET", "requestContext": ["authorizer": caller]], context: InvocationContext(time: now()))
        #expect(usage["statusCode"] == 200)
        #expect(counting.take() == ["BatchGetItem"])
        let body = try JSONParser.parse(usage["body"]?.string ?? "")
        #expect(body["used"] == 2)
    }

    @Test("Items written through the usage store are those of docs/table.md")
    func items() async throws {
        let (table, name) = try await Live.makeLiveTable()
        let store = TableUsageStore(table: table, tableName: name)
        let instant = Timestamp(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z
        _ = try await store.consume(ConsumeRequest(userID: "spec", instant: instant, limits: .free))
        let month = try await table.getItem(
            GetItemRequest(
                tableName: name, key: ["PK": .s(userPartition("spec")), "SK": .s("USAGE#2027-01")], consistentRead: true
            )
        ).item
        #expect(month?["interviewCount"] == .n(1))
        #expect(month?["quotaLimit"] == .n(5))
        #expect(month?["resetDate"] == .s("2027-02-01"))
        #expect(month?["expiresAt"] == .n(1_800_000_000 + 400 * 86_400))
    }

    @Test("After idempotent requests with distinctive topics, a scan finds no topic word and no question")
    func noContentInTheTable() async throws {
        let (table, name) = try await Live.makeLiveTable()
        let store = TableUsageStore(table: table, tableName: name)
        let now: @Sendable () -> Timestamp = { Timestamp(timeIntervalSince1970: 1_800_000_000) }
        let generate = GenerateQuestions(store: store, generator: TemplateQuestionGenerator())
        let caller: JSONValue = ["principalId": "scan", "userId": "scan", "tier": "premium"]
        let topics = ["zanzibar marmalade workshop", "quetzalcoatl birthday"]
        var questions: [String] = []
        for (index, topic) in topics.enumerated() {
            let event: JSONValue = [
                "httpMethod": "POST", "body": .string((["topic": .string(topic)] as JSONValue).jsonString),
                "headers": ["Idempotency-Key": .string("scan-key-\(index)")], "requestContext": ["authorizer": caller],
            ]
            let first = try await generate.handle(event, context: InvocationContext(time: now()))
            #expect(first["statusCode"] == 200)
            let body = try JSONParser.parse(first["body"]?.string ?? "")
            questions += body["questions"]?.array?.compactMap { $0.string } ?? []
            #expect(
                try await generate.handle(event, context: InvocationContext(time: now()))["body"] == first["body"],
                "the repeat is answered from the table")
        }
        let dump = try await table.scan(ScanRequest(tableName: name)).items
            .map { item in item.map { "\($0.key) \($0.value)" }.joined(separator: " ") }.joined(separator: "\n")
        #expect(dump.contains("IDEMPOTENCY#"), "the records are there")
        for word in topics.flatMap({ $0.split(separator: " ") }) { #expect(!dump.contains(word)) }
        for question in questions { #expect(!dump.contains(question)) }
        #expect(!dump.contains("scan-key"), "the table holds the Idempotency-Key")
    }
}
