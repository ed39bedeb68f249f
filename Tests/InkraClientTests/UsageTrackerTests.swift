import Foundation
import Synchronization
import Testing

@testable import InkraClient

/// The tracker the app's screens read: updated from every answer that carries usage, handed to
/// the persistence hook, restored from it; never consulted by the client to refuse a call.
@Suite("UsageTracker: the usage last seen, for the UX")
struct UsageTrackerTests {
    static let now = Date(timeIntervalSince1970: 1_795_424_400)  // 2026-11-23T09:00:00Z

    static let usageBody = #"""
        {"used":3,"limit":5,"remaining":2,"resetDate":"2026-12-01","tier":"free",
         "daily":{"used":3,"limit":3,"resetAt":"2026-11-24T00:00:00Z"},
         "hourly":{"used":0,"limit":2,"resetAt":"2026-11-23T10:00:00Z"}}
        """#

    @Test("usage() reads every figure, and the tracker keeps them and hands them to the hook")
    func usageRecorded() async throws {
        let saved = Mutex([UsageTracker.Snapshot]())
        let tracker = UsageTracker(now: { Self.now }, persist: { snapshot in saved.withLock { $0.append(snapshot) } })
        let host = StubProtocol.host([.json(200, Self.usageBody)])
        let usage = try await Recorder().client(host, tracker: tracker).usage()
        #expect(usage.monthly == MonthlyUsage(used: 3, limit: 5, remaining: 2))
        #expect(usage.resetDate == Date(timeIntervalSince1970: 1_796_083_200))
        #expect(usage.tier == "free")
        #expect(usage.daily == WindowUsage(used: 3, limit: 3, resetAt: Date(timeIntervalSince1970: 1_795_478_400)))
        #expect(usage.hourly.resetAt == Date(timeIntervalSince1970: 1_795_428_000))
        let snapshot = try #require(await tracker.snapshot)
        #expect(snapshot.monthly == usage.monthly && snapshot.daily == usage.daily && snapshot.hourly == usage.hourly)
        #expect(snapshot.observedAt == Self.now)
        #expect(saved.withLock { $0 } == [snapshot])
        #expect(StubProtocol.seen(host).first?.headers["Idempotency-Key"] == nil, "GET /usage charges nothing: no key")
    }

    @Test("a generated answer moves the month; a 429 marks its window full until retryAfter")
    func answersUpdate() async throws {
        let tracker = UsageTracker(now: { Self.now })
        let host = StubProtocol.host([
            .json(200, Self.usageBody), .json(200, questionsBody),
            .json(
                429,
                #"{"error":"Hourly limit exceeded","code":"rate_limited","window":"hour","limit":2,"retryAfter":2400}"#),
            .json(
                429,
                #"{"error":"Monthly quota exceeded","code":"quota_exceeded","window":"month","limit":5,"retryAfter":1036800,"used":5,"resetDate":"2026-12-01","upgradeUrl":"https://inkra.app/premium"}"#
            ),
        ])
        let client = Recorder().client(host, tracker: tracker)
        _ = try await client.usage()
        _ = try await client.generateQuestions(topic: "t")
        #expect(await tracker.snapshot?.monthly == MonthlyUsage(used: 1, limit: 5, remaining: 4))
        #expect(await tracker.snapshot?.tier == "free", "what the answer does not carry stays as last seen")
        await #expect(throws: InkraClientError.rateLimited(window: .hour, limit: 2, retryAfter: 2400)) {
            try await client.generateQuestions(topic: "t")
        }
        #expect(
            await tracker.snapshot?.hourly
                == WindowUsage(used: 2, limit: 2, resetAt: Self.now.addingTimeInterval(2400)))
        await #expect(throws: InkraClientError.self) { try await client.generateQuestions(topic: "t") }
        #expect(await tracker.snapshot?.monthly == MonthlyUsage(used: 5, limit: 5, remaining: 0))
        #expect(await tracker.snapshot?.resetDate == Date(timeIntervalSince1970: 1_796_083_200))
    }

    @Test("a restored snapshot is the starting point, survives JSON, and never stops a call")
    func restoredNeverAuthoritative() async throws {
        let exhausted = UsageTracker.Snapshot(
            monthly: MonthlyUsage(used: 5, limit: 5, remaining: 0), resetDate: nil, tier: "free",
            observedAt: Self.now)
        let json = try JSONEncoder().encode(exhausted)
        let restored = try JSONDecoder().decode(UsageTracker.Snapshot.self, from: json)
        #expect(restored == exhausted)
        let tracker = UsageTracker(restoring: restored, now: { Self.now })
        #expect(await tracker.snapshot == exhausted)
        let host = StubProtocol.host([.json(200, questionsBody)])
        let answer = try await Recorder().client(host, tracker: tracker).generateQuestions(topic: "t")
        #expect(answer.usage.remaining == 4, "the server decides: the call went out and was answered")
        #expect(await tracker.snapshot?.monthly?.remaining == 4)
        await tracker.reset()
        #expect(await tracker.snapshot == nil)
    }
}
