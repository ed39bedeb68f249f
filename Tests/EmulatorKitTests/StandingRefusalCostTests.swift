import EmulatorKit
import Foundation
import InkraTime
import InkraUsage
import SingleTable
import Testing

/// What a refused call costs once a user is refused (issue #47, point 5), in the request units of
/// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
/// (an eventually consistent read of up to 4 KB: half a unit; `BatchGetItem` "as an individual
/// `GetItem`" per key). A flood of refused calls must cost at most one read unit and no write unit
/// each, with or without an `Idempotency-Key`.
@Suite("A standing refusal: refused again for one read and no write")
struct StandingRefusalCostTests {
    static let name = "inkra-usage"
    static let instant = Timestamp(timeIntervalSince1970: 1_773_136_800)  // 2026-03-10T10:00:00Z
    static let limits = Limits(monthly: 2, daily: 10, hourly: 10)

    static func stack() -> (CountingTable, TableUsageStore) {
        let counted = CountingTable(InMemoryTable(schema: .singleTable(named: name), now: { instant }))
        return (counted, TableUsageStore(table: counted, tableName: name))
    }

    static func request(_ key: String? = nil, limits: Limits = limits, at instant: Timestamp = instant)
        -> ConsumeRequest
    {
        ConsumeRequest(
            userID: "ada", instant: instant, limits: limits, idempotencyKey: key,
            requestBody: key == nil ? [] : Array(#"{"topic":"t"}"#.utf8), tier: "free")
    }

    static func isRefused(_ outcome: ConsumeOutcome) -> Bool {
        if case .refused = outcome { return true }
        return false
    }

    @Test("After the first refusal: half a read unit without a key, one with a key, and no write unit")
    func floodCost() async throws {
        let (counted, store) = Self.stack()
        for _ in 0..<2 { _ = try await store.consume(Self.request()) }
        let first = try await store.consume(Self.request())
        #expect(Self.isRefused(first))
        let before = counted.consumed
        for call in 0..<50 {
            #expect(Self.isRefused(try await store.consume(Self.request())))
            #expect(Self.isRefused(try await store.consume(Self.request("flood-\(call)"))))
        }
        let spent = counted.consumed
        #expect(spent.write == before.write, "a refused call writes nothing")
        #expect(spent.read - before.read == 50 * 0.5 + 50 * 1.0)
    }

    @Test("An answered key's retry still gets its answer, not the refusal")
    func answeredKeyRetried() async throws {
        let (_, store) = Self.stack()
        _ = try await store.consume(Self.request())
        guard case .consumed(let consumption, _) = try await store.consume(Self.request("last")) else {
            Issue.record("the month's last unit was not charged")
            return
        }
        try await store.complete(consumption, with: StoredResponse(statusCode: 200, body: #"{"questions":["q"]}"#))
        #expect(Self.isRefused(try await store.consume(Self.request())))
        #expect(
            try await store.consume(Self.request("last"))
                == .repeated(StoredResponse(statusCode: 200, body: #"{"questions":["q"]}"#)))
    }

    @Test("A refund, a reset, a higher limit or the window's end lifts the standing refusal")
    func lifted() async throws {
        let (_, store) = Self.stack()
        for _ in 0..<3 { _ = try await store.consume(Self.request()) }
        #expect(Self.isRefused(try await store.consume(Self.request())))
        // A premium limit: the transaction decides, and admits.
        if case .consumed = try await store.consume(Self.request(limits: Limits(monthly: 10, daily: 10, hourly: 10))) {
        } else {
            Issue.record("a higher limit was refused by the standing refusal")
        }
        #expect(Self.isRefused(try await store.consume(Self.request())))
        _ = try await store.refund(2, to: "ada", at: Self.instant, reference: "INC-1")
        if case .consumed = try await store.consume(Self.request()) {} else { Issue.record("refunded, still refused") }
        #expect(Self.isRefused(try await store.consume(Self.request())))
        _ = try await store.reset(.month, of: "ada", at: Self.instant)
        if case .consumed = try await store.consume(Self.request()) {} else { Issue.record("reset, still refused") }
        // The next month.
        let april = Timestamp(timeIntervalSince1970: 1_775_037_600)  // 2026-04-01T10:00:00Z
        for _ in 0..<2 { _ = try await store.consume(Self.request()) }
        if case .consumed = try await store.consume(Self.request(at: april)) {
        } else {
            Issue.record("a new month refused")
        }
    }

    @Test("Limits lowered after an hour's refusal: the next refusal names the day, now full, not the hour")
    func limitsLoweredAfterRefusal() async throws {
        let (_, store) = Self.stack()
        let generous = Limits(monthly: 3, daily: 2, hourly: 1)
        _ = try await store.consume(Self.request(limits: generous))
        guard case .refused(let first) = try await store.consume(Self.request(limits: generous)) else {
            Issue.record("the hour's second call was admitted")
            return
        }
        #expect(first.window == .hour)
        // The operator lowers the day's limit to what was used: the day is full, and comes first.
        guard
            case .refused(let second) = try await store.consume(
                Self.request(limits: Limits(monthly: 2, daily: 1, hourly: 1)))
        else {
            Issue.record("admitted under lowered limits")
            return
        }
        #expect(second.window == .day, "the standing refusal of the hour answered for the day")
        #expect(second.limit == 1 && second.used == 1)
    }
}
