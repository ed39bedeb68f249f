import Foundation
import InkraHandlers
import InkraJSON
import InkraTesting
import InkraTime
import InkraUsage
import SingleTable
import Testing

@Suite("InMemoryUsageStore")
struct InMemoryUsageStoreTests {
    static let at = Timestamp(iso8601: "2026-03-10T10:20:00Z")
    static let limits = Limits(monthly: 10, daily: 5, hourly: 5)

    @Test("A seeded store holds the items the real store writes for the same calls", arguments: [1, 2, 3])
    func seededItemsAreTheStoresOwn(calls: Int) async throws {
        let real = InMemoryUsageStore(now: { Self.at })
        for _ in 0..<calls {
            let outcome = try await real.consume(ConsumeRequest(userID: "ada", instant: Self.at, limits: Self.limits))
            guard case .consumed = outcome else { throw StoreTestError("call refused: \(outcome)") }
        }
        let seeded = InMemoryUsageStore(
            seeded: ["ada": (month: calls, day: calls, hour: calls)], at: Self.at, limits: Self.limits)
        #expect(seeded.items == real.items)
        #expect(seeded.items.count == 3)
    }

    @Test("Seeded usage is what the store reads and what the functions count against")
    func seededUsage() async throws {
        let store = InMemoryUsageStore(seeded: ["ada": (4, 2, 1), "bo": (5, 0, 0)], at: Self.at)
        let report = try await store.usage(for: "ada", at: Self.at, limits: .free)
        #expect(report.monthly.used == 4)
        #expect(report.daily.used == 2)
        #expect(report.hourly.used == 1)
        #expect(try await store.item(user: "bo", sortKey: "RATELIMIT#2026-03-10") == nil)

        let generate = GenerateQuestions(
            store: store, generator: TemplateQuestionGenerator())
        let ada = try await ProxyResult(
            generate.handle(
                ProxyEvent.rest(caller: Caller("ada"), body: #"{"topic":"x"}"#),
                context: InvocationContext(time: Self.at)))
        #expect(ada.statusCode == 200)
        #expect(ada.body["usage"] == ["used": 5, "limit": 5, "remaining": 0])
        let bo = try await ProxyResult(
            generate.handle(
                ProxyEvent.rest(caller: Caller("bo"), body: #"{"topic":"x"}"#),
                context: InvocationContext(time: Self.at)))
        #expect(bo.code == "quota_exceeded")
        #expect(try await store.refusedUsers(on: "2026-03-10") == [ServerSecret.development.userKey("bo")])
    }

    @Test("A window seeded full refuses in that window only")
    func seededFullHour() async throws {
        let store = InMemoryUsageStore(seeded: ["ada": (2, 2, 2)], at: Self.at)
        let clock = ManualClock(Self.at)
        let generate = GenerateQuestions(store: store, generator: TemplateQuestionGenerator())
        let event = ProxyEvent.rest(caller: Caller("ada"), body: #"{"topic":"x"}"#)
        let refused = try await ProxyResult(generate.handle(event, context: clock.context))
        #expect(refused.code == "rate_limited")
        #expect(refused.body["window"] == "hour")
        clock.advance(toStartOfNext: .hour)
        #expect(try await ProxyResult(generate.handle(event, context: clock.context)).statusCode == 200)
    }

    struct StoreTestError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
