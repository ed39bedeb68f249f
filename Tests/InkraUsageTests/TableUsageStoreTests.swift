import Foundation
import InkraTestSupport
import InkraTime
import SingleTable
import Testing

@testable import InkraUsage

@Suite("Usage store over the single table")
struct TableUsageStoreTests {
    let table = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
    var store: TableUsageStore { TableUsageStore(table: table, tableName: "inkra-usage") }

    func item(_ pk: String, _ sk: String) async throws -> Item? {
        try await table.getItem(GetItemRequest(tableName: "inkra-usage", key: ["PK": .s(pk), "SK": .s(sk)])).item
    }

    func consume(
        _ user: String, at text: String, limits: Limits = .free, key: String? = nil, body: String = #"{"topic":"t"}"#
    ) async throws -> ConsumeOutcome {
        try await store.consume(
            ConsumeRequest(
                userID: user, instant: instant(text), limits: limits, idempotencyKey: key,
                requestBody: key == nil ? [] : Array(body.utf8)))
    }

    /// The user's idempotency records, whatever their sort keys.
    func idempotencyRecords(_ user: String) -> [Item] {
        table.snapshot().filter {
            $0["PK"] == .s(userPartition(user)) && $0["SK"]?.stringValue?.hasPrefix("IDEMPOTENCY#") == true
        }
    }

    @Test("A consume writes the month, day and hour items of docs/table.md")
    func consumeWritesItems() async throws {
        let outcome = try await consume("u1", at: "2026-03-10T10:00:00Z")
        guard case .consumed(let consumption, let monthly) = outcome else {
            Issue.record("expected consumed, got \(outcome)")
            return
        }
        #expect(consumption.userID == "u1")
        #expect(monthly == WindowUsage(used: 1, limit: 5, resetsAt: instant("2026-04-01T00:00:00Z")))
        let start = epoch("2026-03-10T10:00:00Z")
        let month = try #require(try await item(userPartition("u1"), "USAGE#2026-03"))
        #expect(
            month == [
                "PK": .s(userPartition("u1")), "SK": .s("USAGE#2026-03"), "interviewCount": .n(1),
                "lastInterviewDate": .s("2026-03-10T10:00:00Z"), "quotaLimit": .n(5), "resetDate": .s("2026-04-01"),
                "expiresAt": .n(start + 400 * 86_400),
            ]
        )
        let day = try #require(try await item(userPartition("u1"), "RATELIMIT#2026-03-10"))
        #expect(
            day == [
                "PK": .s(userPartition("u1")), "SK": .s("RATELIMIT#2026-03-10"), "requestCount": .n(1),
                "firstRequestTime": .s("2026-03-10T10:00:00Z"), "expiresAt": .n(start + 3 * 86_400),
            ]
        )
        let hour = try #require(try await item(userPartition("u1"), "RATELIMIT#2026-03-10T10"))
        #expect(
            hour == [
                "PK": .s(userPartition("u1")), "SK": .s("RATELIMIT#2026-03-10T10"), "requestCount": .n(1),
                "expiresAt": .n(start + 2 * 86_400),
            ]
        )
    }

    @Test("The hourly limit refuses without consuming, and marks the user refused that day")
    func hourlyRefusal() async throws {
        _ = try await consume("u1", at: "2026-03-10T10:00:00Z")
        _ = try await consume("u1", at: "2026-03-10T10:10:00Z")
        let outcome = try await consume("u1", at: "2026-03-10T10:20:00Z")
        #expect(
            outcome
                == .refused(
                    Refusal(
                        window: .hour, limit: 2, used: 2, resetsAt: instant("2026-03-10T11:00:00Z"),
                        retryAfter: 40 * 60, resetDate: "2026-04-01"
                    )
                )
        )
        #expect(try await item(userPartition("u1"), "USAGE#2026-03")?["interviewCount"] == .n(2))
        #expect(try await item(userPartition("u1"), "RATELIMIT#2026-03-10T10")?["requestCount"] == .n(2))
        let day = try #require(try await item(userPartition("u1"), "RATELIMIT#2026-03-10"))
        #expect(day["requestCount"] == .n(2))
        #expect(day["GSI1PK"] == .s("DATE#2026-03-10"))
        #expect(day["GSI1SK"] == .s(userPartition("u1")))
        #expect(day["blockedUntil"] == .s("2026-03-10T11:00:00Z"))
        #expect(try await store.refusedUsers(on: "2026-03-10") == [userKey("u1")])
        #expect(try await store.refusedUsers(on: "2026-03-11") == [])
    }

    @Test("Month beats day beats hour when several windows are full")
    func priority() async throws {
        let tight = Limits(monthly: 1, daily: 1, hourly: 1)
        _ = try await consume("u1", at: "2026-03-10T10:00:00Z", limits: tight)
        guard case .refused(let refusal) = try await consume("u1", at: "2026-03-10T10:05:00Z", limits: tight) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(refusal.window == .month)
        #expect(refusal.retryAfter == epoch("2026-04-01T00:00:00Z") - epoch("2026-03-10T10:05:00Z"))
        let dayFull = Limits(monthly: 9, daily: 1, hourly: 1)
        guard case .refused(let second) = try await consume("u1", at: "2026-03-10T10:06:00Z", limits: dayFull) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(second.window == .day)
        #expect(second.used == 1)
    }

    @Test("Release gives the unit back in all three windows")
    func release() async throws {
        guard case .consumed(let consumption, _) = try await consume("u1", at: "2026-03-10T10:00:00Z", key: "k1")
        else {
            Issue.record("expected consumed")
            return
        }
        try await store.release(consumption)
        #expect(try await item(userPartition("u1"), "USAGE#2026-03")?["interviewCount"] == .n(0))
        #expect(try await item(userPartition("u1"), "RATELIMIT#2026-03-10")?["requestCount"] == .n(0))
        #expect(try await item(userPartition("u1"), "RATELIMIT#2026-03-10T10")?["requestCount"] == .n(0))
        #expect(idempotencyRecords("u1").isEmpty)
        let report = try await store.usage(for: "u1", at: instant("2026-03-10T10:30:00Z"), limits: .free)
        #expect(report.monthly.used == 0 && report.daily.used == 0 && report.hourly.used == 0)
    }

    @Test("An idempotency key: in progress, then the stored response, consuming once")
    func idempotency() async throws {
        guard
            case .consumed(let consumption, _) = try await consume(
                "u1", at: "2026-03-10T10:00:00Z", key: "the-client's_key")
        else {
            Issue.record("expected consumed")
            return
        }
        // Without a deadline the lease is 32 s: the 409 says when it runs out.
        #expect(
            try await consume("u1", at: "2026-03-10T10:00:01Z", key: "the-client's_key") == .inProgress(retryAfter: 31))
        try await store.complete(consumption, with: StoredResponse(statusCode: 200, body: #"{"questions":[]}"#))
        let records = idempotencyRecords("u1")
        #expect(records.count == 1)
        let record = try #require(records.first)
        #expect(record["status"] == .s("COMPLETED"))
        #expect(record["expiresAt"] == .n(epoch("2026-03-10T10:00:00Z") + 86_400))
        // Neither the key nor the answer is in the clear.
        #expect(!record.description.contains("client"))
        #expect(!record.description.contains("questions"))
        // What a completed record keeps: no lease, no place in the repair index.
        #expect(
            Set(record.keys) == [
                "PK", "SK", "status", "requestDigest", "sealedResponse", "expiresAt", "attempt", "chargedAt",
            ])
        let repeated = try await consume("u1", at: "2026-03-10T10:30:00Z", key: "the-client's_key")
        #expect(repeated == .repeated(StoredResponse(statusCode: 200, body: #"{"questions":[]}"#)))
        #expect(try await item(userPartition("u1"), "USAGE#2026-03")?["interviewCount"] == .n(1))
        // Another user's same key is theirs alone.
        guard case .consumed = try await consume("u2", at: "2026-03-10T10:30:00Z", key: "the-client's_key") else {
            Issue.record("another user's key must not collide")
            return
        }
        // After 24 hours the key may be used again.
        guard case .consumed = try await consume("u1", at: "2026-03-11T10:00:01Z", key: "the-client's_key") else {
            Issue.record("an expired key must consume again")
            return
        }
    }

    @Test("An unanswered call holds its key until its clean-up ends; then a retry takes it over, not charged again")
    func inProgressLease() async throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(12))
        let outcome = try await store.bound(to: RequestScope(deadline: deadline)).consume(
            ConsumeRequest(
                userID: "u1", instant: instant("2026-03-10T10:00:00Z"), limits: .free, idempotencyKey: "k",
                requestBody: Array(#"{"topic":"t"}"#.utf8)))
        guard case .consumed(let first, _) = outcome else {
            Issue.record("expected consumed, got \(outcome)")
            return
        }
        let record = try #require(idempotencyRecords("u1").first)
        // The lease: the deadline and the clean-up budget (2 s) past it.
        let lease = try #require(record["leaseUntil"]?.intValue)
        #expect((epoch("2026-03-10T10:00:00Z") + 13...epoch("2026-03-10T10:00:00Z") + 14).contains(lease))
        #expect(record["chargedAt"] == .n(epoch("2026-03-10T10:00:00Z")))
        // Kept long enough for the repair to find it, however late.
        #expect(record["expiresAt"] == .n(epoch("2026-03-10T10:00:00Z") + 7 * 86_400))
        // Still held within its lease: 409, retry when the lease runs out (at least a second on).
        let start = epoch("2026-03-10T10:00:00Z")
        #expect(
            try await consume("u1", at: "2026-03-10T10:00:05Z", key: "k") == .inProgress(retryAfter: lease - start - 5))
        #expect(
            try await consume("u1", at: "2026-03-10T10:00:13Z", key: "k")
                == .inProgress(retryAfter: max(1, lease - start - 13)))
        // Past it, the retry takes the call over on the unit already charged.
        guard case .consumed(let resumed, let monthly) = try await consume("u1", at: "2026-03-10T10:00:15Z", key: "k")
        else {
            Issue.record("a retry past the lease must take the call over")
            return
        }
        #expect(resumed.instant == first.instant)
        #expect(resumed.attempt != first.attempt)
        #expect(monthly.used == 1)
        #expect(try await item(userPartition("u1"), "USAGE#2026-03")?["interviewCount"] == .n(1))
        // The first attempt, come back late, can neither answer nor give the unit back.
        let late = await #expect(throws: UsageStoreError.self) {
            try await store.complete(first, with: StoredResponse(statusCode: 200, body: "{}"))
        }
        #expect(late?.code == .takenOver)
        try await store.release(first)
        #expect(try await item(userPartition("u1"), "USAGE#2026-03")?["interviewCount"] == .n(1))
        // The one that took over answers, once.
        try await store.complete(resumed, with: StoredResponse(statusCode: 200, body: "{}"))
        #expect(
            try await consume("u1", at: "2026-03-10T10:00:20Z", key: "k")
                == .repeated(StoredResponse(statusCode: 200, body: "{}")))
        #expect(try await item(userPartition("u1"), "USAGE#2026-03")?["interviewCount"] == .n(1))
    }

    @Test("An in-progress record from before records named their attempt frees its key once it expired")
    func recordWithoutAttempt() async throws {
        let seal = IdempotencySeal(key: "k", userID: "u1", secret: .development)
        var old = UsageKeys.key(partition: userPartition("u1"), sort: UsageKeys.idempotency(seal.recordID))
        old["status"] = .s("INPROGRESS")
        old["requestDigest"] = .s(seal.fingerprint(of: Array(#"{"topic":"t"}"#.utf8)))
        old["expiresAt"] = .n(epoch("2026-03-10T10:00:30Z"))
        _ = try await table.putItem(PutItemRequest(tableName: "inkra-usage", item: old))
        // Held until it expires, which the 409 says.
        #expect(try await consume("u1", at: "2026-03-10T10:00:10Z", key: "k") == .inProgress(retryAfter: 20))
        guard case .consumed = try await consume("u1", at: "2026-03-10T10:00:31Z", key: "k") else {
            Issue.record("an expired record of the old form must not lock its key out")
            return
        }
        #expect(try await item(userPartition("u1"), "USAGE#2026-03")?["interviewCount"] == .n(1))
    }

    @Test("The same key with another body is refused as reused, before and after completion, consuming nothing")
    func keyReused() async throws {
        guard case .consumed(let first, _) = try await consume("u1", at: "2026-03-10T10:00:00Z", key: "k", body: "A")
        else {
            Issue.record("expected consumed")
            return
        }
        #expect(try await consume("u1", at: "2026-03-10T10:00:01Z", key: "k", body: "B") == .keyReused)
        try await store.complete(first, with: StoredResponse(statusCode: 200, body: "{}"))
        #expect(try await consume("u1", at: "2026-03-10T10:00:02Z", key: "k", body: "B") == .keyReused)
        #expect(
            try await consume("u1", at: "2026-03-10T10:00:03Z", key: "k", body: "A")
                == .repeated(StoredResponse(statusCode: 200, body: "{}")))
        #expect(try await item(userPartition("u1"), "USAGE#2026-03")?["interviewCount"] == .n(1))
    }

    @Test("A repeat of a completed key is answered even when the user is now at a limit")
    func repeatAtLimit() async throws {
        guard case .consumed(let first, _) = try await consume("u1", at: "2026-03-10T10:00:00Z", key: "a") else {
            Issue.record("expected consumed")
            return
        }
        try await store.complete(first, with: StoredResponse(statusCode: 200, body: "{}"))
        _ = try await consume("u1", at: "2026-03-10T10:01:00Z")
        #expect(
            try await consume("u1", at: "2026-03-10T10:02:00Z", key: "a")
                == .repeated(StoredResponse(statusCode: 200, body: "{}")))
    }

    @Test("Reading usage writes nothing")
    func usageReadsOnly() async throws {
        let report = try await store.usage(for: "nobody", at: instant("2026-03-10T10:00:00Z"), limits: .free)
        #expect(report.monthly == WindowUsage(used: 0, limit: 5, resetsAt: instant("2026-04-01T00:00:00Z")))
        #expect(report.daily == WindowUsage(used: 0, limit: 3, resetsAt: instant("2026-03-11T00:00:00Z")))
        #expect(report.hourly == WindowUsage(used: 0, limit: 2, resetsAt: instant("2026-03-10T11:00:00Z")))
        #expect(report.resetDate == "2026-04-01")
        #expect(table.snapshot().isEmpty)
    }

    @Test("200 concurrent consumes for one free user: exactly 2 succeed")
    func concurrentConsumes() async throws {
        let store = self.store
        let at = instant("2026-03-10T10:00:00Z")
        let outcomes = try await withThrowingTaskGroup(of: ConsumeOutcome.self) { group in
            for _ in 0..<200 {
                group.addTask { try await store.consume(ConsumeRequest(userID: "u1", instant: at, limits: .free)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let consumed = outcomes.filter { if case .consumed = $0 { true } else { false } }
        #expect(consumed.count == 2)
        #expect(try await item(userPartition("u1"), "USAGE#2026-03")?["interviewCount"] == .n(2))
        #expect(try await item(userPartition("u1"), "RATELIMIT#2026-03-10")?["requestCount"] == .n(2))
        #expect(try await item(userPartition("u1"), "RATELIMIT#2026-03-10T10")?["requestCount"] == .n(2))
    }

    @Test("A failing table surfaces as a usage store error, for every operation")
    func failures() async throws {
        let store = TableUsageStore(table: FailingTable(), tableName: "inkra-usage")
        let at = instant("2026-03-10T10:00:00Z")
        await #expect(throws: UsageStoreError.self) {
            try await store.consume(ConsumeRequest(userID: "u1", instant: at, limits: .free))
        }
        await #expect(throws: UsageStoreError.self) { try await store.usage(for: "u1", at: at, limits: .free) }
        await #expect(throws: UsageStoreError.self) { try await store.refusedUsers(on: "2026-03-10") }
        await #expect(throws: UsageStoreError.self) {
            try await store.release(Consumption(userID: "u1", instant: at))
        }
    }
}
