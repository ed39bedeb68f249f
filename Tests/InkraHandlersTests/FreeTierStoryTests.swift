import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTesting
import InkraTime
import InkraUsage
import SingleTable
import Testing

@Suite("The free-tier story, on an injected clock")
struct FreeTierStoryTests {
    let harness = Harness()
    let user = Fixtures.lambdaContext("user-1", email: "ada@example.com")

    func call(at time: String) async throws -> Reply {
        harness.clock.set(time)
        return try await harness.generate(
            ProxyEvent.rest(body: #"{"topic":"my first job","count":3}"#, authorizer: user))
    }

    @Test("Hourly, daily and monthly limits in turn, then the stored items of docs/table.md")
    func story() async throws {
        let first = try await call(at: "2026-03-10T10:00:00Z")
        #expect(first.statusCode == 200)
        #expect(first.body["questions"]?.array?.count == 3)
        #expect(first.body["usage"] == ["used": 1, "limit": 5, "remaining": 4])

        let second = try await call(at: "2026-03-10T10:10:00Z")
        #expect(second.statusCode == 200)
        #expect(second.body["usage"] == ["used": 2, "limit": 5, "remaining": 3])

        let hourly = try await call(at: "2026-03-10T10:20:00Z")
        #expect(hourly.statusCode == 429)
        #expect(
            hourly.body
                == [
                    "error": "Hourly limit exceeded", "code": "rate_limited", "window": "hour", "limit": 2,
                    "retryAfter": 2_400,
                ])
        #expect(hourly.headers["Retry-After"] == "2400")

        let third = try await call(at: "2026-03-10T11:00:00Z")
        #expect(third.statusCode == 200)
        #expect(third.body["usage"] == ["used": 3, "limit": 5, "remaining": 2])

        let daily = try await call(at: "2026-03-10T12:00:00Z")
        #expect(daily.statusCode == 429)
        #expect(
            daily.body
                == [
                    "error": "Daily limit exceeded", "code": "rate_limited", "window": "day", "limit": 3,
                    "retryAfter": 43_200,
                ])
        #expect(daily.headers["Retry-After"] == "43200")

        #expect(try await call(at: "2026-03-11T09:00:00Z").statusCode == 200)
        let fifth = try await call(at: "2026-03-11T10:00:00Z")
        #expect(fifth.statusCode == 200)
        #expect(fifth.body["usage"] == ["used": 5, "limit": 5, "remaining": 0])

        let monthly = try await call(at: "2026-03-11T11:00:00Z")
        #expect(monthly.statusCode == 429)
        let secondsToApril = Int(instant("2026-04-01T00:00:00Z").timeIntervalSince(instant("2026-03-11T11:00:00Z")))
        #expect(
            monthly.body
                == [
                    "error": "Monthly quota exceeded", "code": "quota_exceeded", "window": "month", "limit": 5,
                    "retryAfter": .number(secondsToApril), "used": 5, "resetDate": "2026-04-01",
                    "upgradeUrl": "https://inkra.app/premium",
                ]
        )
        #expect(monthly.headers["Retry-After"] == .string(String(secondsToApril)))

        // The stored items, attribute by attribute.
        let month = try #require(try await harness.item(userPartition("user-1"), "USAGE#2026-03"))
        #expect(
            month == [
                "PK": .s(userPartition("user-1")), "SK": .s("USAGE#2026-03"), "interviewCount": .n(5),
                "lastInterviewDate": .s("2026-03-11T10:00:00Z"), "quotaLimit": .n(5), "resetDate": .s("2026-04-01"),
                "expiresAt": .n(Int(instant("2026-03-11T10:00:00Z").timeIntervalSince1970) + 400 * 86_400),
            ]
        )
        let day1 = try #require(try await harness.item(userPartition("user-1"), "RATELIMIT#2026-03-10"))
        #expect(
            day1 == [
                "PK": .s(userPartition("user-1")), "SK": .s("RATELIMIT#2026-03-10"), "requestCount": .n(3),
                "firstRequestTime": .s("2026-03-10T10:00:00Z"),
                "expiresAt": .n(Int(instant("2026-03-10T11:00:00Z").timeIntervalSince1970) + 3 * 86_400),
                "blockedUntil": .s("2026-03-11T00:00:00Z"), "refusedWindow": .s("day"), "tier": .s("free"),
                "GSI1PK": .s("DATE#2026-03-10"), "GSI1SK": .s(userPartition("user-1")),
            ]
        )
        let hour10 = try #require(try await harness.item(userPartition("user-1"), "RATELIMIT#2026-03-10T10"))
        #expect(
            hour10 == [
                "PK": .s(userPartition("user-1")), "SK": .s("RATELIMIT#2026-03-10T10"), "requestCount": .n(2),
                "expiresAt": .n(Int(instant("2026-03-10T10:10:00Z").timeIntervalSince1970) + 2 * 86_400),
            ]
        )
        let day2 = try #require(try await harness.item(userPartition("user-1"), "RATELIMIT#2026-03-11"))
        #expect(day2["requestCount"] == .n(2))
        #expect(day2["GSI1PK"] == .s("DATE#2026-03-11"))
        #expect(day2["blockedUntil"] == .s("2026-04-01T00:00:00Z"))
        #expect(try await harness.store.refusedUsers(on: "2026-03-10") == [userKey("user-1")])
        #expect(try await harness.store.refusedUsers(on: "2026-03-11") == [userKey("user-1")])
        // The standing refusal, which answers the next refused calls without a write: the month's.
        let standing = try #require(try await harness.item(userPartition("user-1"), "REFUSED"))
        #expect(standing["refusedWindow"] == .s("month"))
        #expect(standing["refusedUsed"] == .n(5))
        #expect(standing["markedDay"] == .s("2026-03-11"))
        #expect(standing["blockedUntil"] == .n(Int(instant("2026-04-01T00:00:00Z").timeIntervalSince1970)))
        let items = harness.table.snapshot()
        // One month, two days, four hours (10, 11 on day 1; 09, 10 on day 2), the standing refusal.
        let expected: Int = 1 + 2 + 4 + 1
        #expect(items.count == expected)
    }

    @Test("Premium users pass where free ones stop")
    func premium() async throws {
        let premium = Fixtures.lambdaContext("vip", tier: "premium")
        for minute in 0..<5 {
            harness.clock.set("2026-03-10T10:0\(minute):00Z")
            let reply = try await harness.generate(ProxyEvent.rest(body: #"{"topic":"sailing"}"#, authorizer: premium))
            #expect(reply.statusCode == 200)
            #expect(reply.body["usage"]?["limit"] == 999_999)
        }
    }

    @Test("A custom:monthly_quota claim overrides the tier's monthly limit")
    func monthlyQuotaClaim() async throws {
        let claims: JSONValue = ["claims": ["sub": "q-user", "custom:monthly_quota": "1"]]
        let first = try await harness.generate(ProxyEvent.rest(body: #"{"topic":"sailing"}"#, authorizer: claims))
        #expect(first.body["usage"] == ["used": 1, "limit": 1, "remaining": 0])
        harness.clock.set("2026-03-10T12:00:00Z")
        let second = try await harness.generate(ProxyEvent.rest(body: #"{"topic":"sailing"}"#, authorizer: claims))
        #expect(second.statusCode == 429)
        #expect(second.error == "Monthly quota exceeded")
        #expect(second.body["limit"] == 1)
    }

    @Test(
        "Windows roll over at UTC edges",
        arguments: [
            ("2026-03-10T23:59:59Z", "2026-03-11T00:00:00Z"),
            ("2026-03-31T23:59:59Z", "2026-04-01T00:00:00Z"),
            ("2028-02-28T23:59:59Z", "2028-02-29T00:00:00Z"),
            ("2028-02-29T23:59:59Z", "2028-03-01T00:00:00Z"),
        ]
    )
    func edges(before: String, after: String) async throws {
        let tight = Fixtures.lambdaContext("edge", quota: 50)
        let event = ProxyEvent.rest(body: #"{"topic":"edges"}"#, authorizer: tight)
        harness.clock.set(before)
        #expect(try await harness.generate(event).statusCode == 200)
        #expect(try await harness.generate(event).statusCode == 200)
        #expect(try await harness.generate(event).statusCode == 429)  // hourly limit in the old hour
        harness.clock.set(after)
        #expect(try await harness.generate(event).statusCode == 200)  // a new hour and a new day
    }

    @Test("200 concurrent calls for one free user: exactly 2 succeed, counters say 2")
    func concurrency() async throws {
        let function = harness.generateQuestions
        let context = harness.clock.context
        let event = ProxyEvent.http(body: #"{"topic":"rush hour"}"#, authorizer: ["lambda": ["userId": "busy"]])
        let statuses = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<200 {
                group.addTask { (try? Reply(await function.handle(event, context: context)).statusCode) ?? -1 }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 200 }.count == 2)
        #expect(statuses.filter { $0 == 429 }.count == 198)
        #expect(try await harness.item(userPartition("busy"), "USAGE#2026-03")?["interviewCount"] == .n(2))
        #expect(try await harness.item(userPartition("busy"), "RATELIMIT#2026-03-10")?["requestCount"] == .n(2))
        #expect(try await harness.item(userPartition("busy"), "RATELIMIT#2026-03-10T10")?["requestCount"] == .n(2))
    }
}
