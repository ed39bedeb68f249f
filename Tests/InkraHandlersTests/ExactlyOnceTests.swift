import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTesting
import InkraTime
import InkraUsage
import SingleTable
import Synchronization
import Testing

/// The metering promise in process, on a table that refuses to send past the deadline as
/// `DynamoDBTable` does and fails what a test names: a unit stays charged exactly when its call is
/// answered 200. The same paths are proven from outside the process through the built
/// `bootstrap` on moto behind a fault proxy (BootstrapTests' `BootstrapFaultTests`).
@Suite("Exactly once: a unit stays charged only for a call answered 200")
struct ExactlyOnceTests {
    let caller = Fixtures.lambdaContext("u1")
    let clock = ManualClock("2026-03-10T10:00:00Z")

    func function(_ table: FaultyTable, _ generator: any QuestionGenerator = TemplateQuestionGenerator(seed: 7))
        -> GenerateQuestions
    {
        GenerateQuestions(
            store: TableUsageStore(table: table, tableName: "inkra-usage"), generator: generator)
    }

    /// An invocation at the clock's time, with a deadline when given.
    func context(deadline: ContinuousClock.Instant? = nil) -> InvocationContext {
        InvocationContext(time: clock.now, deadline: deadline)
    }

    func counters(_ table: FaultyTable) async throws -> [Int] {
        var counts: [Int] = []
        for (sort, counter) in [
            ("USAGE#2026-03", "interviewCount"), ("RATELIMIT#2026-03-10", "requestCount"),
            ("RATELIMIT#2026-03-10T10", "requestCount"),
        ] {
            let item = try await table.base.getItem(
                GetItemRequest(tableName: "inkra-usage", key: ["PK": .s(userPartition("u1")), "SK": .s(sort)])
            ).item
            counts.append(item?[counter]?.intValue ?? 0)
        }
        return counts
    }

    func records(_ table: FaultyTable) -> [Item] {
        table.base.snapshot().filter { $0["SK"]?.stringValue?.hasPrefix("IDEMPOTENCY#") == true }
    }

    func event(_ topic: String, key: String? = nil) -> JSONValue {
        ProxyEvent.rest(
            body: #"{"topic":"\#(topic)"}"#,
            headers: key.map { ["Idempotency-Key": $0] } ?? [:],
            authorizer: caller
        )
    }

    @Test(
        "A model that outlives the deadline: the give-back is still sent, in the clean-up budget",
        arguments: [nil, "k"])
    func giveBackPastDeadline(key: String?) async throws {
        let table = FaultyTable()
        let slow = ScriptedGenerator(repeating: .delayed(.seconds(120), .template))
        let reply = try ProxyResult(
            await function(table, slow).handle(
                event("slow", key: key), context: context(deadline: .now + .milliseconds(200))))
        #expect(reply.statusCode == 503)
        #expect(reply.body["error"]?.string?.contains("nothing was charged") == true)
        #expect(try await counters(table) == [0, 0, 0])
        #expect(records(table).isEmpty)
    }

    @Test("A read that fails after the charge committed: 503, and the unit is given back")
    func readAfterCharge() async throws {
        let table = FaultyTable { operation, _ in
            operation == "GetItem" ? TableError(.internalServerError, "Internal server error") : nil
        }
        let reply = try ProxyResult(await function(table).handle(event("a read fails", key: "k"), context: context()))
        #expect(reply.statusCode == 503)
        #expect(table.count("TransactWriteItems") == 2)  // the charge, and its give-back
        #expect(try await counters(table) == [0, 0, 0])
        #expect(records(table).isEmpty)
    }

    @Test("A refusal whose mark cannot be written is still a 429 with its window and retryAfter")
    func refusalMarkFails() async throws {
        let table = FaultyTable { operation, _ in
            operation == "UpdateItem" ? TableError(.internalServerError, "Internal server error") : nil
        }
        let generate = function(table)
        for topic in ["one", "two"] {
            #expect(try ProxyResult(await generate.handle(event(topic), context: context())).statusCode == 200)
        }
        let refused = try ProxyResult(await generate.handle(event("three"), context: context()))
        #expect(refused.statusCode == 429)
        #expect(refused.body["code"] == "rate_limited")
        #expect(refused.body["window"] == "hour")
        #expect(refused.body["retryAfter"] != nil)
        #expect(try await counters(table) == [2, 2, 2])
    }

    @Test("An answer whose record cannot be written is a 503; the retry takes the call over and is not charged again")
    func completeFails() async throws {
        // The first write of an answer fails, whatever the call wrote before it.
        let failed = Mutex(false)
        let table = FaultyTable(updateFault: { request in
            guard request.updateExpression?.contains("sealedResponse") == true else { return nil }
            return failed.withLock { done in
                defer { done = true }
                return done ? nil : TableError(.internalServerError, "Internal server error")
            }
        })
        let generate = function(table)
        // The lease is what is left of the request's deadline and clean-up: 100 s keeps the call
        // within it however long a busy test process waits (a CI run's first suite, on two cores,
        // once took more than 20 s), and short of the 120 s the clock is moved.
        let first = try ProxyResult(
            await generate.handle(event("kept", key: "k"), context: context(deadline: .now + .seconds(100))))
        #expect(first.statusCode == 503)
        #expect(first.body["error"]?.string?.contains("same Idempotency-Key") == true)
        #expect(try await counters(table) == [1, 1, 1])
        // Within the lease the key is held; past it, the retry answers on the unit already charged.
        #expect(try ProxyResult(await generate.handle(event("kept", key: "k"), context: context())).statusCode == 409)
        clock.advance(by: .seconds(120))
        let retry = try ProxyResult(await generate.handle(event("kept", key: "k"), context: context()))
        #expect(retry.statusCode == 200)
        #expect(retry.body["usage"]?["used"] == 1)
        #expect(try await counters(table) == [1, 1, 1])
        let again = try ProxyResult(await generate.handle(event("kept", key: "k"), context: context()))
        #expect(again.statusCode == 200 && again.headers["Idempotent-Replayed"] == "true")
        #expect(again.body == retry.body)
    }

    @Test("An orphan — charged, never answered, never retried — is given back by the repair, once")
    func repair() async throws {
        // The call's runtime "dies" after the charge: nothing answers or gives the unit back.
        let table = FaultyTable()
        let store = TableUsageStore(table: table, tableName: "inkra-usage")
        let at = clock.now
        // A lease of up to 20 s (what is left of the deadline): +3 s is inside it, +60 s past it.
        let outcome = try await store.bound(to: RequestScope(deadline: .now + .seconds(20))).consume(
            ConsumeRequest(userID: "u1", instant: at, limits: .free, idempotencyKey: "k"))
        guard case .consumed = outcome else {
            Issue.record("expected consumed")
            return
        }
        // Inside the lease the repair does not touch it.
        #expect(try await store.repairCharges(at: at.addingTimeInterval(3)) == ChargeRepair(repaired: 0, leftAlone: 0))
        #expect(try await counters(table) == [1, 1, 1])
        // Past it, the unit comes back and the record goes, once.
        #expect(try await store.repairCharges(at: at.addingTimeInterval(60)) == ChargeRepair(repaired: 1, leftAlone: 0))
        #expect(
            try await store.repairCharges(at: at.addingTimeInterval(120)) == ChargeRepair(repaired: 0, leftAlone: 0))
        #expect(try await counters(table) == [0, 0, 0])
        #expect(records(table).isEmpty)
        // A later retry with that key runs as a new call.
        clock.advance(by: .seconds(120))
        let retry = try ProxyResult(await function(table).handle(event("orphan", key: "k"), context: context()))
        #expect(retry.statusCode == 200)
        #expect(try await counters(table) == [1, 1, 1])
    }

    @Test("The repair leaves alone a call that a retry took over, and a call answered meanwhile")
    func repairRacesTakeOver() async throws {
        let table = FaultyTable()
        let store = TableUsageStore(table: table, tableName: "inkra-usage")
        let at = clock.now
        let request = ConsumeRequest(userID: "u1", instant: at, limits: .free, idempotencyKey: "k")
        _ = try await store.consume(request)
        var late = request
        late.instant = at.addingTimeInterval(40)
        guard case .consumed(let resumed, _) = try await store.consume(late) else {
            Issue.record("the retry must take the call over")
            return
        }
        // The repair sees the retry's fresh lease.
        #expect(try await store.repairCharges(at: at.addingTimeInterval(45)) == ChargeRepair(repaired: 0, leftAlone: 0))
        try await store.complete(resumed, with: StoredResponse(statusCode: 200, body: "{}"))
        #expect(
            try await store.repairCharges(at: at.addingTimeInterval(3600)) == ChargeRepair(repaired: 0, leftAlone: 0))
        #expect(try await counters(table) == [1, 1, 1])
    }
}
