import DynamoDBTable
import Foundation
import InkraTestSupport
import InkraTime
import InkraUsage
import SingleTable
import Testing

/// Support's tools and the account deletion, on the in-memory table and on DynamoDB (moto): the
/// same store, the same items before and after.
enum AdministrationContract {
    /// 2026-11-17T10:30:00Z.
    static let now = Timestamp(timeIntervalSince1970: 1_794_911_400)
    static let yesterday = now.addingTimeInterval(-86_400)

    /// A store on a fresh table, and every item of a user.
    struct Fixture {
        let table: any Table
        let name: String
        var store: TableUsageStore { TableUsageStore(table: table, tableName: name) }

        func items(of user: String) async throws -> [Item] {
            try await table.query(
                QueryRequest(
                    tableName: name, keyConditionExpression: "PK = :pk",
                    expressionAttributes: ExpressionAttributes(values: [":pk": .s(userPartition(user))]),
                    consistentRead: true)
            ).items
        }

        func sortKeys(of user: String) async throws -> [String] {
            try await items(of: user).compactMap { $0["SK"]?.stringValue }.sorted()
        }

        /// `count` units at `instant` (a minute apart), premium limits so none is refused.
        func consume(_ user: String, _ count: Int, at instant: Timestamp, key: String? = nil) async throws {
            for index in 0..<count {
                let outcome = try await store.consume(
                    ConsumeRequest(
                        userID: user, instant: instant.addingTimeInterval(Double(index) * 60), limits: .premium,
                        idempotencyKey: key.map { "\($0)-\(index)" }, requestBody: Array("b".utf8)))
                guard case .consumed = outcome else {
                    Issue.record("seeding \(user): \(outcome)")
                    return
                }
            }
        }

        func usage(_ user: String, at instant: Timestamp = now) async throws -> [Int] {
            let report = try await store.usage(for: user, at: instant, limits: .free)
            return [report.monthly.used, report.daily.used, report.hourly.used]
        }
    }

    static func refund(_ fixture: Fixture) async throws {
        try await fixture.consume("ada", 1, at: yesterday)
        try await fixture.consume("ada", 3, at: now.addingTimeInterval(-25 * 60))  // 10:05, 10:06, 10:07
        try await fixture.consume("bob", 2, at: now)
        #expect(try await fixture.usage("ada") == [4, 3, 3])

        let first = try await fixture.store.refund(2, to: "ada", at: now, reference: nil)
        #expect(first.reference == "2026-11-17T10/2")
        #expect(!first.alreadyApplied)
        #expect(first.changes.map(\.window) == [.month, .day, .hour])
        #expect(first.changes.map(\.period) == ["2026-11", "2026-11-17", "2026-11-17T10"])
        #expect(first.changes.map(\.before) == [4, 3, 3])
        #expect(first.changes.map(\.after) == [2, 1, 1])
        #expect(try await fixture.usage("ada") == [2, 1, 1])

        // The same command again: the reference is the user's already, nothing changes.
        let again = try await fixture.store.refund(2, to: "ada", at: now.addingTimeInterval(60), reference: nil)
        #expect(again.alreadyApplied)
        #expect(again.changes.filter { $0.changed }.isEmpty)
        #expect(try await fixture.usage("ada") == [2, 1, 1])

        // A refund larger than the usage stops at zero.
        let incident = try await fixture.store.refund(5, to: "ada", at: now, reference: "INC-42")
        #expect(incident.changes.map(\.after) == [0, 0, 0])
        #expect(try await fixture.usage("ada") == [0, 0, 0])
        #expect(try await fixture.usage("bob") == [2, 2, 2], "another user is untouched")
        #expect(
            try await fixture.sortKeys(of: "ada").filter { $0.hasPrefix("REFUND#") } == [
                "REFUND#2026-11-17T10/2", "REFUND#INC-42",
            ])

        // Nothing used: nothing to give back, and no record.
        let empty = try await fixture.store.refund(1, to: "carol", at: now, reference: nil)
        #expect(!empty.alreadyApplied && empty.changes.filter { $0.changed }.isEmpty)
        #expect(try await fixture.items(of: "carol").isEmpty)

        // The units given back can be used again: the month's limit counts from the new value.
        let outcome = try await fixture.store.consume(ConsumeRequest(userID: "ada", instant: now, limits: .free))
        guard case .consumed(_, let monthly) = outcome else {
            Issue.record("expected a unit after the refund, got \(outcome)")
            return
        }
        #expect(monthly.used == 1)
    }

    static func reset(_ fixture: Fixture) async throws {
        try await fixture.consume("ada", 1, at: yesterday)
        try await fixture.consume("ada", 2, at: now)
        try await fixture.consume("bob", 2, at: now)
        let day = try await fixture.store.reset(.day, of: "ada", at: now)
        #expect(day == WindowChange(window: .day, period: "2026-11-17", before: 2, after: 0))
        #expect(try await fixture.usage("ada") == [3, 0, 2])
        let again = try await fixture.store.reset(.day, of: "ada", at: now)
        #expect(again == WindowChange(window: .day, period: "2026-11-17", before: 0, after: 0))
        #expect(try await fixture.usage("ada") == [3, 0, 2])
        #expect(try await fixture.store.reset(.month, of: "ada", at: now).before == 3)
        #expect(try await fixture.store.reset(.hour, of: "ada", at: now).before == 2)
        #expect(try await fixture.usage("ada") == [0, 0, 0])
        #expect(try await fixture.usage("bob") == [2, 2, 2])
        // A window never used gets no item.
        #expect(try await fixture.store.reset(.hour, of: "nobody", at: now).changed == false)
        #expect(try await fixture.items(of: "nobody").isEmpty)
    }

    static func erase(_ fixture: Fixture) async throws {
        try await fixture.consume("ada", 1, at: yesterday)
        try await fixture.consume("ada", 2, at: now, key: "idem")
        // Refused by the hour: a refusal mark on the day item.
        let refused = try await fixture.store.consume(
            ConsumeRequest(userID: "ada", instant: now, limits: .free, tier: "free"))
        guard case .refused = refused else {
            Issue.record("expected a refusal, got \(refused)")
            return
        }
        _ = try await fixture.store.refund(1, to: "ada", at: now, reference: "INC-1")
        try await fixture.consume("bob", 1, at: now, key: "bob")
        let bobBefore = try await fixture.items(of: "bob")
        #expect(try await fixture.store.refusedUsers(on: "2026-11-17") == [userKey("ada")])

        let erasure = try await fixture.store.erase(user: "ada")
        #expect(
            erasure.removedByKind == ["month": 1, "day": 2, "hour": 2, "idempotency": 2, "refund": 1],
            "\(erasure)")
        #expect(erasure.removed == 8)
        #expect(erasure.refusalMarks == 1)
        #expect(try await fixture.items(of: "ada").isEmpty)
        #expect(try await fixture.store.refusedUsers(on: "2026-11-17").isEmpty, "its GSI1 entry went with it")
        #expect(try await fixture.items(of: "bob") == bobBefore, "another user is untouched")

        let again = try await fixture.store.erase(user: "ada")
        #expect(again.removed == 0 && again.refusalMarks == 0)
    }

    static func refusals(_ fixture: Fixture) async throws {
        func consume(_ user: String, _ tier: String?, _ limits: Limits, at instant: Timestamp) async throws
            -> ConsumeOutcome
        {
            try await fixture.store.consume(ConsumeRequest(userID: user, instant: instant, limits: limits, tier: tier))
        }
        // zoe (free): 2 in the hour, then refused by the hour; later the day refuses her.
        for minute in 0..<3 {
            _ = try await consume("zoe", "free", .free, at: now.addingTimeInterval(Double(minute) * 60))
        }
        // max (premium, 1 a day): refused by the day.
        let tight = Limits(monthly: 10, daily: 1, hourly: 5)
        _ = try await consume("max", "premium", tight, at: now)
        _ = try await consume("max", "premium", tight, at: now)
        // old: a mark written without a tier.
        _ = try await consume("old", nil, tight, at: now)
        _ = try await consume("old", nil, tight, at: now)

        var listed = try await fixture.store.refusals(on: "2026-11-17")
        // Listed by the users' pseudonyms: the table holds no id.
        #expect(
            listed
                == [
                    RefusedUser(
                        userID: userKey("max"), tier: "premium", window: .day, blockedUntil: "2026-11-18T00:00:00Z"),
                    RefusedUser(userID: userKey("old"), tier: nil, window: .day, blockedUntil: "2026-11-18T00:00:00Z"),
                    RefusedUser(
                        userID: userKey("zoe"), tier: "free", window: .hour, blockedUntil: "2026-11-17T11:00:00Z"),
                ].sorted { $0.userID < $1.userID })
        // The day's last refusal is the one listed.
        _ = try await consume("zoe", "free", .free, at: now.addingTimeInterval(3600))
        _ = try await consume("zoe", "free", .free, at: now.addingTimeInterval(3660))
        listed = try await fixture.store.refusals(on: "2026-11-17")
        #expect(listed.first { $0.userID == userKey("zoe") }?.window == .day)
        #expect(try await fixture.store.refusals(on: "2026-11-16").isEmpty)
        #expect(try await fixture.store.refusedUsers(on: "2026-11-17") == ["max", "old", "zoe"].map(userKey).sorted())
    }
}

@Suite("Support's tools and erasure on the in-memory table")
struct UsageAdministrationMemoryTests {
    static func fixture() -> AdministrationContract.Fixture {
        AdministrationContract.Fixture(
            table: InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now }),
            name: "inkra-usage")
    }

    @Test("refund: N back in every window, never below zero, once per reference")
    func refund() async throws { try await AdministrationContract.refund(Self.fixture()) }

    @Test("reset: one window to zero, idempotent, others untouched")
    func reset() async throws { try await AdministrationContract.reset(Self.fixture()) }

    @Test("erase: every item of the user and its GSI1 entry, counted by kind; others untouched")
    func erase() async throws { try await AdministrationContract.erase(Self.fixture()) }

    @Test("refusals: the users refused on a date with their tier and the refusing window")
    func refusals() async throws { try await AdministrationContract.refusals(Self.fixture()) }

    @Test("erase pages through the partition, two items a page, and leaves nothing")
    func erasePages() async throws {
        let memory = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
        let paging = PagingTable(base: memory, pageSize: 2)
        let fixture = AdministrationContract.Fixture(table: paging, name: "inkra-usage")
        for index in 0..<7 {
            _ = try await memory.putItem(
                PutItemRequest(
                    tableName: "inkra-usage", item: ["PK": .s(userPartition("big")), "SK": .s("NOTE#\(index)")]))
        }
        let erasure = try await fixture.store.erase(user: "big")
        #expect(erasure.removedByKind == ["note": 7])
        #expect(paging.queries() >= 5, "7 items, 2 a page, then an empty pass")
        #expect(memory.snapshot().isEmpty)
    }
}

/// A table whose queries answer at most `pageSize` items a page, as DynamoDB's 1 MB pages do.
final class PagingTable: Table, @unchecked Sendable {
    let base: InMemoryTable
    let pageSize: Int
    private let lock = NSLock()
    private var count = 0

    init(base: InMemoryTable, pageSize: Int) {
        self.base = base
        self.pageSize = pageSize
    }

    func queries() -> Int { lock.withLock { count } }

    func getItem(_ request: GetItemRequest) async throws -> GetItemResponse { try await base.getItem(request) }
    func batchGetItem(_ request: BatchGetItemRequest) async throws -> BatchGetItemResponse {
        try await base.batchGetItem(request)
    }
    func putItem(_ request: PutItemRequest) async throws -> WriteItemResponse { try await base.putItem(request) }
    func updateItem(_ request: UpdateItemRequest) async throws -> WriteItemResponse {
        try await base.updateItem(request)
    }
    func deleteItem(_ request: DeleteItemRequest) async throws -> WriteItemResponse {
        try await base.deleteItem(request)
    }
    func query(_ request: QueryRequest) async throws -> QueryResponse {
        lock.withLock { count += 1 }
        var paged = request
        paged.limit = pageSize
        return try await base.query(paged)
    }
    func scan(_ request: ScanRequest) async throws -> QueryResponse { try await base.scan(request) }
    func transactWriteItems(_ request: TransactWriteItemsRequest) async throws {
        try await base.transactWriteItems(request)
    }
}

@Suite(
    "Support's tools and erasure on DynamoDB (moto)", .serialized,
    .enabled(if: MotoEndpoint.isAvailable, Comment(rawValue: MotoEndpoint.skipReason)))
struct UsageAdministrationLiveTests {
    static func fixture() async throws -> AdministrationContract.Fixture {
        let (table, name) = try await Live.makeLiveTable()
        return AdministrationContract.Fixture(table: table, name: name)
    }

    @Test("refund: N back in every window, never below zero, once per reference")
    func refund() async throws { try await AdministrationContract.refund(Self.fixture()) }

    @Test("reset: one window to zero, idempotent, others untouched")
    func reset() async throws { try await AdministrationContract.reset(Self.fixture()) }

    @Test("erase: every item of the user and its GSI1 entry, counted by kind; others untouched")
    func erase() async throws { try await AdministrationContract.erase(Self.fixture()) }

    @Test("refusals: the users refused on a date with their tier and the refusing window")
    func refusals() async throws { try await AdministrationContract.refusals(Self.fixture()) }
}
