import AWSServices
import DynamoDBTable
import Foundation
import HTTPText
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime
import SingleTable
import Synchronization
import Testing

@testable import InkraUsage

/// The store's retries on a clock that moves only when they wait: a test of a conflict that never
/// clears reaches the deadline by waiting, in no time, however busy the machine is.
///
/// The clock starts an hour ahead of the real one: the retries count their budget from there, and
/// what reads the deadline on the real clock (the table client, which sends nothing once it has
/// passed; the in-progress mark's lifetime) has an hour to spare, so a machine that stalls the test
/// cannot end it before the retries do.
final class VirtualRetryClock: Sendable {
    let start = ContinuousClock.now + .seconds(3600)
    private let waited = Mutex(Duration.zero)

    /// The time the retries waited.
    var elapsed: Duration { waited.withLock { $0 } }

    /// The store's policy, with this clock's waits and a jitter of one half.
    var retry: TableUsageStore.Retry {
        var retry = TableUsageStore.Retry()
        retry.sleep = { duration in self.waited.withLock { $0 += duration } }
        retry.now = { self.start + self.elapsed }
        retry.backoff.jitter = { 0.5 }
        return retry
    }

    /// `store` with this clock's retries, bound to a request whose deadline is `budget` after `start`.
    func store(_ store: TableUsageStore, within budget: Duration) -> TableUsageStore {
        var store = store
        store.retry = retry
        return store.bound(to: RequestScope(deadline: start + budget))
    }
}

/// The usage store against DynamoDB's transaction conflicts, as ``ConflictTransport`` answers them
/// (Amazon DynamoDB API Reference, `TransactWriteItems`, Errors; Developer Guide, "Transaction
/// conflict handling in DynamoDB" and "Error handling with DynamoDB").
@Suite("Transaction conflicts: retried within the request's deadline, never counted twice")
struct TransactionConflictTests {
    static let at = Timestamp(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z
    static let month = "USAGE#2027-01"
    static let day = "RATELIMIT#2027-01-15"
    static let hour = "RATELIMIT#2027-01-15T08"

    struct Stack {
        let table: InMemoryTable
        let transport: ConflictTransport
        let store: TableUsageStore

        init(rate: Double = 0, seed: UInt64 = 1) {
            table = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
            transport = ConflictTransport(table: table, rate: rate, seed: seed)
            let client = DynamoDBTable(
                endpoint: HTTPURL(string: "http://127.0.0.1:8000")!, region: "us-east-1",
                credentials: AWSCredentials(accessKeyID: "local", secretAccessKey: "local"), transport: transport,
                sleep: { _ in }, jitter: { 0.5 }, now: { Timestamp.now })
            store = TableUsageStore(table: client, tableName: "inkra-usage")
        }

        /// A consume through `bound`, or, without it, within a minute of virtual retries
        /// (``TransactionConflictTests/generously(_:)``).
        func consume(
            _ user: String = "u1", limits: Limits = .free, key: String? = nil, through bound: TableUsageStore? = nil
        ) async throws -> ConsumeOutcome {
            try await (bound ?? generously(store)).consume(
                ConsumeRequest(userID: user, instant: TransactionConflictTests.at, limits: limits, idempotencyKey: key))
        }

        /// A counter as stored, 0 when its item is absent.
        func stored(_ sort: String, _ counter: String, user: String = "u1") -> Int {
            let item = table.snapshot().first { $0["PK"] == .s(userPartition(user)) && $0["SK"] == .s(sort) }
            return item?[counter]?.intValue ?? 0
        }
    }

    /// `store` with a minute of retries on a clock of its own (``VirtualRetryClock``): what is
    /// retried is the subject, never how busy the machine is.
    static func generously(_ store: TableUsageStore) -> TableUsageStore {
        VirtualRetryClock().store(store, within: .seconds(60))
    }

    static func consumed(_ outcome: ConsumeOutcome) -> Consumption? {
        if case .consumed(let consumption, _) = outcome { consumption } else { nil }
    }

    // MARK: - Admission under conflicts

    @Test("50 concurrent consumes meeting random conflicts admit exactly the limit, and none fails")
    func concurrentConflicts() async throws {
        let stack = Stack(rate: 0.3, seed: 2026)
        let limits = Limits(monthly: 10, daily: 10, hourly: 10)
        let results = await withTaskGroup(of: Result<ConsumeOutcome, any Error>.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    do {
                        return .success(try await stack.consume(limits: limits))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let failures = results.compactMap { if case .failure(let error) = $0 { "\(error)" } else { nil } }
        let outcomes = results.compactMap { try? $0.get() }
        #expect(failures.isEmpty, "\(failures)")
        #expect(outcomes.count { Self.consumed($0) != nil } == 10)
        #expect(outcomes.count { if case .refused = $0 { true } else { false } } == 40)
        #expect(stack.stored(Self.month, "interviewCount") == 10)
        #expect(stack.stored(Self.day, "requestCount") == 10)
        #expect(stack.stored(Self.hour, "requestCount") == 10)
        #expect(try await stack.store.refusedUsers(on: "2027-01-15") == [userKey("u1")])
        let answers = stack.transport.sent.map(\.answer)
        #expect(answers.contains { if case .cancelled = $0 { true } else { false } }, "no transaction conflicted")
        // The refusals' marks went through whatever conflicts they met (above, the user is listed).
        // How many marks there were, and so whether a random conflict fell on one, is the
        // interleaving's: a refusal after the standing refusal was written sends none.
        // "The refusal mark is retried on TransactionConflictException" holds the retry itself.
        #expect(!stack.transport.sent("UpdateItem").isEmpty, "no refusal was marked")
    }

    @Test("A conflict that never clears ends in a usage store error before the deadline, and spends nothing")
    func conflictNeverClears() async throws {
        let stack = Stack()
        _ = try await stack.consume()
        let before = stack.table.snapshot()
        stack.transport.always("TransactWriteItems", .conflict(at: 1, of: 3))
        let clock = VirtualRetryClock()
        let error = await #expect(throws: UsageStoreError.self) {
            try await stack.consume(through: clock.store(stack.store, within: .seconds(20)))
        }
        #expect(clock.elapsed < .seconds(20), "waited past the request's deadline")
        #expect(clock.elapsed > .seconds(19), "gave up long before the request's deadline")
        let underlying = try #require(error?.underlying as? TableError)
        #expect(underlying.code == .transactionConflict)
        #expect(underlying.isConflict)
        #expect(underlying.message.contains("another transaction"), "\(underlying)")
        let attempts = stack.transport.sent("TransactWriteItems").dropFirst()
        #expect(attempts.count > 40, "the conflict was not retried until the deadline")
        #expect(Set(attempts.map(\.token)).count == attempts.count, "a cancelled transaction's token was reused")
        #expect(stack.table.snapshot() == before)
    }

    // MARK: - ClientRequestToken

    @Test("A cancelled transaction is retried under a fresh ClientRequestToken")
    func freshTokenAfterCancellation() async throws {
        let stack = Stack()
        stack.transport.script(
            "TransactWriteItems", [.conflict(at: 0, of: 3), .cancelled(["None", "None", "ThrottlingError"])])
        #expect(Self.consumed(try await stack.consume()) != nil)
        let tokens = stack.transport.sent("TransactWriteItems").map(\.token)
        #expect(tokens.count == 3)
        #expect(Set(tokens).count == 3 && !tokens.contains(nil), "\(tokens)")
        #expect(stack.stored(Self.month, "interviewCount") == 1)
    }

    @Test("After an attempt whose outcome is unknown, every retry reuses its token")
    func sameTokenAfterUnknownOutcome() async throws {
        let stack = Stack()
        stack.transport.script("TransactWriteItems", [.timeout, .conflict(at: 2, of: 3), .conflict(at: 0, of: 3)])
        #expect(Self.consumed(try await stack.consume()) != nil)
        let tokens = stack.transport.sent("TransactWriteItems").map(\.token)
        #expect(tokens.count == 4)
        #expect(Set(tokens).count == 1 && tokens[0] != nil, "\(tokens)")
        #expect(stack.stored(Self.month, "interviewCount") == 1)
    }

    @Test("TransactionInProgressException is retried under the same token, past the client's own attempts")
    func sameTokenWhileInProgress() async throws {
        let stack = Stack()
        let inProgress = Array(repeating: ConflictTransport.Answer.transactionInProgress, count: 5)
        stack.transport.script("TransactWriteItems", inProgress + [.conflict(at: 1, of: 3)])
        #expect(Self.consumed(try await stack.consume()) != nil)
        let tokens = stack.transport.sent("TransactWriteItems").map(\.token)
        #expect(tokens.count == 7)
        #expect(Set(tokens).count == 1 && tokens[0] != nil, "\(tokens)")
        #expect(stack.stored(Self.month, "interviewCount") == 1)
    }

    // MARK: - Plain writes and the give-back

    @Test("The give-back is retried when its transaction meets another")
    func releaseRetried() async throws {
        let stack = Stack()
        let consumption = try #require(Self.consumed(try await stack.consume(key: "k1")))
        stack.transport.script("TransactWriteItems", [.conflict(at: 3, of: 4), .conflict(at: 0, of: 4)])
        try await Self.generously(stack.store).release(consumption)
        #expect(stack.transport.sent("TransactWriteItems").count == 4)
        #expect(stack.stored(Self.month, "interviewCount") == 0)
        #expect(stack.stored(Self.day, "requestCount") == 0)
        #expect(stack.stored(Self.hour, "requestCount") == 0)
        #expect(Self.consumed(try await stack.consume(key: "k1")) != nil, "the key was not forgotten")
    }

    @Test("The completion is retried on TransactionConflictException, past the client's own attempts")
    func completeRetried() async throws {
        let stack = Stack()
        let consumption = try #require(Self.consumed(try await stack.consume(key: "k2")))
        stack.transport.script("UpdateItem", Array(repeating: .transactionConflict, count: 6))
        let response = StoredResponse(statusCode: 200, body: #"{"questions":["Where did you grow up?"]}"#)
        try await Self.generously(stack.store).complete(consumption, with: response)
        #expect(stack.transport.sent("UpdateItem").count == 7)
        #expect(try await stack.consume(key: "k2") == .repeated(response))
        #expect(stack.stored(Self.month, "interviewCount") == 1)
    }

    @Test("The refusal mark is retried on TransactionConflictException")
    func markRefusedRetried() async throws {
        let stack = Stack()
        let limits = Limits(monthly: 5, daily: 5, hourly: 1)
        _ = try await stack.consume(limits: limits)
        stack.transport.script("UpdateItem", Array(repeating: .transactionConflict, count: 6))
        guard case .refused(let refusal) = try await stack.consume(limits: limits) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(refusal.window == .hour)
        // The day's mark through six conflicts, then the standing refusal.
        #expect(stack.transport.sent("UpdateItem").count == 6 + 2)
        #expect(try await stack.store.refusedUsers(on: "2027-01-15") == [userKey("u1")])
    }

    @Test("A plain write that keeps conflicting ends in a usage store error naming the conflict, in its clean-up")
    func completeNeverClears() async throws {
        let stack = Stack()
        let consumption = try #require(Self.consumed(try await stack.consume(key: "k3")))
        stack.transport.always("UpdateItem", .transactionConflict)
        let clock = VirtualRetryClock()
        let error = await #expect(throws: UsageStoreError.self) {
            try await clock.store(stack.store, within: .seconds(5)).complete(
                consumption, with: StoredResponse(statusCode: 200, body: "{}"))
        }
        #expect((error?.underlying as? TableError)?.code == .transactionConflict)
        // Completing is clean-up: it may run its own budget past the request's deadline, no more.
        #expect(clock.elapsed < .seconds(5) + RequestScope.cleanupBudget)
        #expect(stack.transport.sent("UpdateItem").count > 4 * 10, "the store did not retry past the client")
    }

    // MARK: - Refusals keep their meaning

    @Test("A full window is a refusal at once: ConditionalCheckFailed with None beside it is never retried")
    func conditionalCheckIsRefusal() async throws {
        let stack = Stack()
        let limits = Limits(monthly: 5, daily: 5, hourly: 1)
        _ = try await stack.consume(limits: limits)
        let outcome = try await stack.consume(limits: limits)
        #expect(
            { if case .refused(let refusal) = outcome { refusal.window == .hour } else { false } }(), "\(outcome)")
        #expect(stack.transport.sent("TransactWriteItems").count == 2)
        #expect(stack.stored(Self.hour, "requestCount") == 1)
    }

    @Test(
        "A cancellation naming ConditionalCheckFailed is a refusal even beside a conflict",
        arguments: [
            (["ConditionalCheckFailed", "TransactionConflict", "None"], UsageWindow.month),
            (["None", "ConditionalCheckFailed", "None"], .day),
            (["TransactionConflict", "None", "ConditionalCheckFailed"], .hour),
        ])
    func conditionalCheckBesideConflict(codes: [String], window: UsageWindow) async throws {
        let stack = Stack()
        stack.transport.script("TransactWriteItems", [.cancelled(codes)])
        let outcome = try await stack.consume()
        #expect(
            { if case .refused(let refusal) = outcome { refusal.window == window } else { false } }(), "\(outcome)")
        #expect(stack.transport.sent("TransactWriteItems").count == 1, "a refusal was retried")
        #expect(stack.stored(Self.month, "interviewCount") == 0)
    }

    // MARK: - What the caller sees

    @Test("generateQuestions answers 503 with Retry-After when the conflict never clears, and charges nothing")
    func handlerAnswers503() async throws {
        let stack = Stack()
        stack.transport.always("TransactWriteItems", .conflict(at: 0, of: 3))
        // The store's retries on a clock of their own; the invocation has no deadline, so they
        // keep to their budget without one.
        var store = stack.store
        store.retry = VirtualRetryClock().retry
        let function = GenerateQuestions(store: store, generator: TemplateQuestionGenerator(seed: 1))
        let event: JSONValue = [
            "httpMethod": "POST", "path": "/questions", "headers": ["Content-Type": "application/json"],
            "body": #"{"topic":"the old house"}"#,
            "requestContext": ["authorizer": ["principalId": "u1", "sub": "u1", "tier": "free"]],
        ]
        let response = try await function.handle(event, context: InvocationContext(time: Self.at))
        #expect(response["statusCode"] == 503)
        #expect(response["headers"]?["Retry-After"]?.string != nil, "\(response)")
        #expect(try JSONParser.parse(response["body"]?.string ?? "")["error"] == "Usage store unavailable")
        #expect(stack.table.snapshot().isEmpty)
    }
}
