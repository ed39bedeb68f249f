import Foundation
import InkraHandlers
import InkraJSON
import InkraTesting
import InkraUsage
import SingleTable
import Testing

/// Deleting an account does not reset the meter (issue #47): sequences an adversary would try,
/// through the functions, on the in-memory table (the built `serve` and `bootstrap` are driven by
/// scripts/adversary.sh).
@Suite("Account deletion keeps the meter: the same token, the same email")
struct AccountDeletionTests {
    /// The month binds first: five a month, ten a day and an hour.
    static let limits = TierLimits(["free": Limits(monthly: 5, daily: 10, hourly: 10)])

    struct Stack {
        let clock: ManualClock
        let store: InMemoryUsageStore
        let generate: GenerateQuestions
        let usage: CheckUsage
        let delete: DeleteAccount

        init() {
            let clock = ManualClock("2026-03-10T10:00:00Z")
            self.clock = clock
            // The table's time to live reads the same clock.
            let store = InMemoryUsageStore(now: clock.closure)
            self.store = store
            generate = GenerateQuestions(store: store, generator: TemplateQuestionGenerator(), limits: limits)
            usage = CheckUsage(store: store, limits: limits)
            delete = DeleteAccount(store: store)
        }

        func ask(_ caller: Caller, key: String? = nil, topic: String = "a lighthouse") async throws -> ProxyResult {
            let headers = key.map { ["Idempotency-Key": $0] } ?? [:]
            let event = ProxyEvent.rest(caller: caller, body: #"{"topic":"\#(topic)"}"#, headers: headers)
            return try await ProxyResult(generate.handle(event, context: clock.context))
        }

        func used(_ caller: Caller) async throws -> ProxyResult {
            try await ProxyResult(
                usage.handle(ProxyEvent.rest("GET", "/usage", caller: caller), context: clock.context))
        }

        func deleteAccount(_ caller: Caller) async throws -> Int {
            try await ProxyResult(
                delete.handle(ProxyEvent.rest("DELETE", "/account", caller: caller), context: clock.context)
            )
            .statusCode
        }

        /// Calls until the first refusal; the number answered 200.
        func drain(_ caller: Caller, limit: Int = 20) async throws -> Int {
            var answered = 0
            for call in 0..<limit {
                let result = try await ask(caller, key: "\(caller.sub)-\(call)")
                guard result.statusCode == 200 else { break }
                answered += 1
            }
            return answered
        }
    }

    @Test("Call until 429, delete, call again with the same token: 401 from every function, for 25 hours")
    func sameToken() async throws {
        let stack = Stack()
        let ada = Caller("ada", email: "ada@example.com")
        #expect(try await stack.drain(ada) == 5)
        #expect(try await stack.deleteAccount(ada) == 204)
        for _ in 0..<3 {
            let again = try await stack.ask(ada, key: UUID().uuidString)
            #expect(again.statusCode == 401)
            #expect(again.code == "unauthorized")
            #expect(again.error == "This account was deleted; sign up to use Inkra again")
            #expect(try await stack.used(ada).statusCode == 401)
            // Deleting again is still 204, and still changes nothing.
            #expect(try await stack.deleteAccount(ada) == 204)
        }
        // The longest a Cognito token lives (a day) and API Gateway caches an answer (an hour).
        stack.clock.advance(by: .seconds(25 * 3600 - 1))
        #expect(try await stack.ask(ada, key: "late").statusCode == 401)
    }

    @Test("A month's end inside the 25 hours: the next month's calls are refused too")
    func acrossTheMonth() async throws {
        let stack = Stack()
        stack.clock.set("2026-03-31T23:30:00Z")
        let ada = Caller("ada")
        #expect(try await stack.ask(ada).statusCode == 200)
        #expect(try await stack.deleteAccount(ada) == 204)
        stack.clock.set("2026-04-01T00:30:00Z")
        #expect(try await stack.ask(ada).statusCode == 401)
        #expect(try await stack.used(ada).statusCode == 401)
    }

    @Test("Deleted and signed up again with the same verified email: the month goes on from where it was")
    func sameEmail() async throws {
        let stack = Stack()
        let first = Caller("ada-1", email: "ada@example.com")
        for call in 0..<3 { #expect(try await stack.ask(first, key: "k\(call)").statusCode == 200) }
        #expect(try await stack.deleteAccount(first) == 204)
        // A new sub, the same address (Cognito compares addresses without case).
        let second = Caller("ada-2", email: " Ada@Example.COM")
        let before = try await stack.used(second)
        #expect(before.statusCode == 200)
        #expect(before.body["used"] == 3)
        #expect(before.body["remaining"] == 2)
        #expect(try await stack.drain(second) == 2)
        let refused = try await stack.ask(second, key: "one-more")
        #expect(refused.statusCode == 429)
        #expect(refused.code == "quota_exceeded")
        // Another address is another person.
        #expect(try await stack.drain(Caller("bo", email: "bo@example.com")) == 5)
        // A third account of the same address, after deleting the second, gets nothing either.
        #expect(try await stack.deleteAccount(second) == 204)
        #expect(try await stack.drain(Caller("ada-3", email: "ada@example.com")) == 0)
    }

    @Test("The table keeps the carried usage under a keyed hash: no address, no sub; gone at the month's end")
    func whatIsKept() async throws {
        let stack = Stack()
        let first = Caller("ada-1", email: "ada@example.com")
        #expect(try await stack.ask(first, key: "k").statusCode == 200)
        #expect(try await stack.deleteAccount(first) == 204)
        let items = stack.store.items
        let text = "\(items)"
        #expect(!text.lowercased().contains("ada@example.com"))
        #expect(!text.contains("lighthouse"))
        let carried = items.filter { $0["PK"]?.stringValue?.hasPrefix("EMAIL#") == true }
        #expect(carried.count == 3, "month, day and hour: \(carried)")
        let month = try #require(carried.first { $0["SK"] == .s("USAGE#2026-03") })
        // Erased (DynamoDB's TTL) when the month ends.
        #expect(
            month["expiresAt"]
                == .n(
                    Int(try #require(ISO8601DateFormatter().date(from: "2026-04-01T00:00:00Z")).timeIntervalSince1970)))
        #expect(Set(month.keys) == ["PK", "SK", "interviewCount", "expiresAt"])
        // A new month: the carried usage no longer counts.
        stack.clock.set("2026-04-02T10:00:00Z")
        #expect(try await stack.drain(Caller("ada-2", email: "ada@example.com")) == 5)
    }

    @Test("A burst of first calls after signing up again admits exactly what the month has left")
    func burstAfterSigningUpAgain() async throws {
        let stack = Stack()
        let first = Caller("ada-1", email: "ada@example.com")
        for call in 0..<3 { #expect(try await stack.ask(first, key: "k\(call)").statusCode == 200) }
        #expect(try await stack.deleteAccount(first) == 204)
        let second = Caller("ada-2", email: "ada@example.com")
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for call in 0..<12 { group.addTask { try await stack.ask(second, key: "burst-\(call)").statusCode } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 200 }.count == 2, "\(statuses)")
        #expect(statuses.allSatisfy { [200, 429].contains($0) }, "\(statuses)")
        let after = try await stack.used(second)
        #expect(after.body["used"] == 5)
    }

    @Test("An unverified email carries nothing: it could be anyone's address")
    func unverifiedEmail() async throws {
        let stack = Stack()
        // The authorizer passes only a verified email (TokenVerifier); without one, nothing is kept.
        let first = Caller("mallory-1")
        #expect(try await stack.drain(first) == 5)
        #expect(try await stack.deleteAccount(first) == 204)
        #expect(!stack.store.items.contains { $0["PK"]?.stringValue?.hasPrefix("EMAIL#") == true })
    }
}
