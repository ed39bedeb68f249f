import AWSServices
import DynamoDBTable
import EmulatorKit
import Foundation
import HTTPText
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime
import InkraUsage
import SingleTable
import Synchronization
import Testing

/// A clock that only moves when the client waits: backoff sleeps and timed-out attempts.
final class VirtualClock: Sendable {
    private let instant = Mutex(Timestamp(timeIntervalSince1970: 1_800_000_000))
    var now: Timestamp { instant.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { instant.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// DynamoDB's faults in front of a real endpoint (the emulator's, over an in-memory table), so
/// "applied" means applied: timeouts and 500s and throttling before the request reaches the
/// table, and connections reset after the table applied it, when the client never hears back.
final class FaultyTransport: DynamoDBTransport, Sendable {
    enum Fault: CaseIterable { case timeoutBefore, serverError, throttled, resetAfter }

    private struct State {
        var generator: SeededGenerator
        var faults: [Fault: Int] = [:]
        /// The timeout of each attempt that timed out, by operation.
        var timeouts: [String: [TimeInterval]] = [:]
        /// ClientRequestTokens of TransactWriteItems the table answered 200 to.
        var appliedTokens: Set<String> = []
    }

    private let endpoint: LocalDynamoDB
    private let clock: VirtualClock
    private let rate: Double
    private let forced: (@Sendable (DynamoDBHTTPRequest, Int) -> Fault?)?
    private let state: Mutex<State>
    private let attempts = Mutex([String: Int]())

    init(
        endpoint: LocalDynamoDB, clock: VirtualClock, seed: UInt64, rate: Double,
        forced: (@Sendable (DynamoDBHTTPRequest, Int) -> Fault?)? = nil
    ) {
        self.endpoint = endpoint
        self.clock = clock
        self.rate = rate
        self.forced = forced
        state = Mutex(State(generator: SeededGenerator(seed: seed)))
    }

    var faults: [Fault: Int] { state.withLock { $0.faults } }
    /// The timeout of each attempt of `operation` that timed out.
    func timeouts(of operation: String) -> [TimeInterval] { state.withLock { $0.timeouts[operation] ?? [] } }
    var appliedTransactions: Int { state.withLock { $0.appliedTokens.count } }

    func send(_ request: DynamoDBHTTPRequest) async throws -> DynamoDBHTTPResponse {
        let token = (try? JSONParser.parse(request.body))?["ClientRequestToken"]?.string
        let attempt = attempts.withLock { counts in
            let key = token ?? UUID().uuidString
            counts[key, default: 0] += 1
            return counts[key]!
        }
        let fault: Fault? = state.withLock { state in
            let chosen =
                forced.map { $0(request, attempt) }
                ?? (Double(state.generator.next() % 1000) / 1000 < rate
                    ? Fault.allCases[Int(state.generator.next() % 4)] : nil)
            if let chosen { state.faults[chosen, default: 0] += 1 }
            return chosen
        }
        switch fault {
        case .timeoutBefore?:
            state.withLock { $0.timeouts[request.operation, default: []].append(request.timeout) }
            clock.advance(request.timeout)
            throw URLError(.timedOut)
        case .serverError?:
            return DynamoDBHTTPResponse(
                status: 500, body: Array(#"{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError"}"#.utf8))
        case .throttled?:
            return DynamoDBHTTPResponse(
                status: 400,
                body: Array(
                    #"{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Rate exceeded"}"#.utf8
                ))
        case .resetAfter?, nil:
            let target = request.headers.first { $0.0.lowercased() == "x-amz-target" }?.1
            let reply = await endpoint.respond(target: target, body: request.body)
            if reply.status == 200, let token { state.withLock { _ = $0.appliedTokens.insert(token) } }
            if fault == .resetAfter { throw URLError(.networkConnectionLost) }
            return DynamoDBHTTPResponse(status: reply.status, body: reply.body)
        }
    }
}

@Suite("Store faults: DynamoDB that times out, fails, throttles and drops answers")
struct StoreFaultTests {
    static let limits = TierLimits(["free": Limits(monthly: 5, daily: 5, hourly: 5)])

    struct Stack {
        let table: InMemoryTable
        let transport: FaultyTransport
        let clock: VirtualClock
        let function: GenerateQuestions
        let store: TableUsageStore
    }

    static func stack(
        seed: UInt64, rate: Double, forced: (@Sendable (DynamoDBHTTPRequest, Int) -> FaultyTransport.Fault?)? = nil
    ) -> Stack {
        let clock = VirtualClock()
        let table = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { clock.now })
        let transport = FaultyTransport(
            endpoint: LocalDynamoDB(table: table, now: { clock.now }), clock: clock, seed: seed, rate: rate,
            forced: forced)
        let client = DynamoDBTable(
            endpoint: HTTPURL(string: "http://127.0.0.1:8000")!, region: "us-east-1",
            credentials: AWSCredentials(accessKeyID: "local", secretAccessKey: "local"), transport: transport,
            sleep: { clock.advance($0) }, jitter: { 0.5 }, now: { clock.now })
        let store = TableUsageStore(table: client, tableName: "inkra-usage")
        let function = GenerateQuestions(
            store: store, generator: TemplateQuestionGenerator(seed: seed), limits: limits)
        return Stack(table: table, transport: transport, clock: clock, function: function, store: store)
    }

    static func event(_ user: String) -> JSONValue {
        [
            "httpMethod": "POST", "path": "/questions", "headers": ["Content-Type": "application/json"],
            "body": #"{"topic":"the old house"}"#,
            "requestContext": ["authorizer": ["principalId": .string(user), "sub": .string(user), "tier": "free"]],
        ]
    }

    /// The units stored for a user this month, read straight from the table.
    static func stored(_ stack: Stack, _ user: String) -> Int {
        stack.table.snapshot().first { $0["PK"] == .s(userPartition(user)) && $0["SK"] == .s("USAGE#2027-01") }?[
            "interviewCount"
        ].flatMap { if case .n(let number) = $0 { Int(number.description) } else { nil } } ?? 0
    }

    @Test(
        "Random faults, requests one after another: never over the limit, never counted twice", arguments: [1, 2, 3, 4])
    func sequentialFaults(seed: Int) async throws {
        let stack = Self.stack(seed: UInt64(seed), rate: 0.35)
        var statuses: [Int] = []
        for _ in 0..<12 {
            statuses.append(
                try await stack.function.handle(
                    Self.event("faulty"), context: InvocationContext(time: stack.clock.now))["statusCode"]?.int ?? 0)
        }
        #expect(Set(statuses).isSubset(of: [200, 429, 503]), "\(statuses)")
        let admitted = statuses.count { $0 == 200 }
        let stored = Self.stored(stack, "faulty")
        #expect(admitted <= 5 && stored <= 5, "over-admitted: \(admitted) answered, \(stored) stored")
        #expect(stored == stack.transport.appliedTransactions - 0, "a retried transaction applied twice")
        #expect(stored >= admitted, "an answered request is missing from the table")
        #expect(stored <= admitted + statuses.count { $0 == 503 })
        #expect(stack.transport.faults.values.reduce(0, +) > 0)
    }

    @Test("Random faults, 30 concurrent requests for one user: at most the limit admitted and stored")
    func concurrentFaults() async throws {
        let stack = Self.stack(seed: 42, rate: 0.3)
        let statuses = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<30 {
                group.addTask {
                    (try? await stack.function.handle(
                        Self.event("crowd"), context: InvocationContext(time: stack.clock.now))["statusCode"]?.int) ?? 0
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let stored = Self.stored(stack, "crowd")
        #expect(statuses.count { $0 == 200 } <= 5)
        #expect(stored <= 5)
        #expect(stored >= statuses.count { $0 == 200 })
        #expect(Set(statuses).isSubset(of: [200, 429, 503]), "\(statuses)")
    }

    @Test("Every first answer lost after the table applied it: all answered 200, each counted once")
    func resetAfterApply() async throws {
        let stack = Self.stack(seed: 7, rate: 0) { request, attempt in
            request.operation == "TransactWriteItems" && attempt == 1 ? .resetAfter : nil
        }
        for _ in 0..<4 {
            #expect(
                try await stack.function.handle(Self.event("reset"), context: InvocationContext(time: stack.clock.now))[
                    "statusCode"] == 200)
        }
        #expect(Self.stored(stack, "reset") == 4)
        #expect(stack.transport.faults[.resetAfter] == 4)
    }

    @Test("DynamoDB down: 503 after the last attempt, within the deadline, and nothing stored")
    func gives503InBoundedTime() async throws {
        let stack = Self.stack(seed: 9, rate: 0) { _, _ in .timeoutBefore }
        let started = stack.clock.now
        let response = try await stack.function.handle(
            Self.event("down"), context: InvocationContext(time: stack.clock.now))
        #expect(response["statusCode"] == 503)
        #expect(try JSONParser.parse(response["body"]?.string ?? "")["error"] == "Usage store unavailable")
        let options = DynamoDBTable.Options()
        let elapsed = stack.clock.now.timeIntervalSince(started)
        // First the standing refusal's read, whose every attempt is cut to its 250 ms budget. (This
        // clock moves by each timed-out attempt; the real one, which bounds the budget, does not,
        // so here its attempts go on: on a real table the budget ends the read after the first.)
        let peek = stack.transport.timeouts(of: "GetItem")
        #expect(!peek.isEmpty && peek.allSatisfy { $0 <= 0.25 }, "\(peek)")
        let charge = elapsed - peek.reduce(0, +)
        // The call's deadline and its last attempt's timeout, and the read's budget of real time.
        #expect(charge <= options.deadline + options.requestTimeout + 0.25, "took \(charge) s of DynamoDB time")
        // Each attempt times out after 3 s: the fourth ends past the 10 s a call may take, so no
        // fifth is sent, though 9 attempts are allowed.
        #expect(
            stack.transport.timeouts(of: "TransactWriteItems").count
                == Int((options.deadline / options.requestTimeout).rounded(.up)))
        #expect(options.maximumAttempts > 4)
        #expect(stack.table.snapshot().isEmpty)
    }

    @Test("Throttled and 500 before applying, then through: answered once, counted once")
    func throttledThenThrough() async throws {
        let stack = Self.stack(seed: 11, rate: 0) { request, attempt in
            guard request.operation == "TransactWriteItems" else { return nil }
            return attempt == 1 ? .throttled : attempt == 2 ? .serverError : nil
        }
        #expect(
            try await stack.function.handle(Self.event("slow"), context: InvocationContext(time: stack.clock.now))[
                "statusCode"] == 200)
        #expect(Self.stored(stack, "slow") == 1)
    }

    @Test("A refusal's mark on a throttled table is retried for half a second, not the clean-up budget")
    func refusalMarkIsBrief() async throws {
        let clock = VirtualClock()
        let table = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { clock.now })
        let transport = FaultyTransport(
            endpoint: LocalDynamoDB(table: table, now: { clock.now }), clock: clock, seed: 1, rate: 0,
            forced: { request, _ in request.operation == "UpdateItem" ? .throttled : nil })
        // Real waits, each the whole backoff cap (25 ms, 50 ms, … doubling): the fifth attempt is
        // sent 375 ms after the first, a sixth would be at 775 ms.
        let client = DynamoDBTable(
            endpoint: HTTPURL(string: "http://127.0.0.1:8000")!, region: "us-east-1",
            credentials: AWSCredentials(accessKeyID: "local", secretAccessKey: "local"), transport: transport,
            jitter: { 1 }, now: { clock.now })
        // A deadline far off: under the whole clean-up budget the mark would take all 9 attempts.
        let store = TableUsageStore(table: client, tableName: "inkra-usage")
            .bound(to: RequestScope(deadline: .now + .seconds(20)))
        let limits = Limits(monthly: 5, daily: 5, hourly: 1)
        func consume() async throws -> ConsumeOutcome {
            try await store.consume(ConsumeRequest(userID: "u1", instant: clock.now, limits: limits))
        }
        _ = try await consume()
        let outcome = try await consume()
        guard case .refused(let refusal) = outcome else {
            Issue.record("expected a refusal, got \(outcome)")
            return
        }
        #expect(refusal.window == .hour)
        #expect(refusal.recorded == false)
        // Sent, and retried for half a second at most: five attempts fit in it, however slowly the
        // machine wakes the waits; the whole clean-up budget would have let all nine go. (The
        // standing refusal waits for the day's mark, which never goes through.)
        let marks = transport.faults[.throttled] ?? 0
        #expect((1...5).contains(marks), "UpdateItem sent \(marks) times for the mark")
    }
}
