import Foundation
import Synchronization
import Testing

@testable import InkraClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the client did besides its requests: the waits it asked for and the tokens it asked for.
final class Recorder: Sendable {
    private let state = Mutex((waits: [Duration](), refreshes: [Bool]()))
    var waits: [Duration] { state.withLock { $0.waits } }
    /// Each token request's `forceRefresh`.
    var refreshes: [Bool] { state.withLock { $0.refreshes } }

    /// A numbered token, recording whether a fresh one was asked for.
    func token(forceRefresh: Bool) -> String {
        let number = state.withLock { state in
            state.refreshes.append(forceRefresh)
            return state.refreshes.count
        }
        return "token-\(number)"
    }

    /// Records a wait instead of waiting.
    func record(_ wait: Duration) { state.withLock { $0.waits.append(wait) } }

    /// A client of `host` (a ``StubProtocol`` host) that records its waits and token requests.
    func client(_ host: String, policy: RetryPolicy = .standard, tracker: UsageTracker = UsageTracker(now: { Date() }))
        -> InkraClient
    {
        InkraClient(
            baseURL: URL(string: "https://\(host)/prod")!, session: StubProtocol.session(), retryPolicy: policy,
            usageTracker: tracker, sleep: { [self] wait in record(wait) },
            token: { [self] forceRefresh in token(forceRefresh: forceRefresh) })
    }
}

let questionsBody =
    #"{"questions":["What was your first day like?","Who taught you the most?","What would you do again?"],"usage":{"used":1,"limit":5,"remaining":4}}"#

/// The client's decisions (retries, keys, tokens, errors), against scripted answers: the statuses
/// and bodies are docs/errors.md's and docs/functions.md's.
@Suite("InkraClient: retries, keys, tokens and errors")
struct ClientDecisionTests {
    @Test("a call sends its topic, its key and the token; a second call gets a fresh key")
    func keysPerCall() async throws {
        let host = StubProtocol.host([.json(200, questionsBody), .json(200, questionsBody)])
        let recorder = Recorder()
        let client = recorder.client(host)
        let first = try await client.generateQuestions(topic: "my first job", length: .short, count: 3, language: "en")
        _ = try await client.generateQuestions(topic: "my first job")
        #expect(first.questions.count == 3)
        #expect(first.usage == MonthlyUsage(used: 1, limit: 5, remaining: 4))
        #expect(!first.replayed)
        let seen = StubProtocol.seen(host)
        #expect(seen.map(\.method) == ["POST", "POST"])
        #expect(seen.map(\.path) == ["/prod/questions", "/prod/questions"])
        #expect(seen[0].headers["Authorization"] == "Bearer token-1")
        let body = try JSONSerialization.jsonObject(with: seen[0].body) as? [String: Any]
        #expect(body?["topic"] as? String == "my first job")
        #expect(body?["length"] as? String == "short")
        #expect(body?["count"] as? Int == 3)
        #expect(body?["language"] as? String == "en")
        let defaults = try JSONSerialization.jsonObject(with: seen[1].body) as? [String: Any]
        #expect(defaults?.keys.sorted() == ["topic"], "absent members take the server's defaults")
        let keys = seen.compactMap { $0.headers["Idempotency-Key"] }
        #expect(keys.count == 2 && keys[0] != keys[1] && !keys[0].isEmpty)
    }

    @Test("409 waits the body's retryAfter and retries with the same key and body; a replay says so")
    func inProgressThenReplay() async throws {
        let host = StubProtocol.host([
            .json(
                409,
                #"{"error":"A request with this Idempotency-Key is still in progress","code":"idempotency_conflict","retryAfter":3}"#,
                headers: ["Retry-After": "3"]),
            .answer(
                status: 200, headers: ["Content-Type": "application/json", "Idempotent-Replayed": "true"],
                body: questionsBody),
        ])
        let recorder = Recorder()
        let answer = try await recorder.client(host).generateQuestions(topic: "the harbour")
        #expect(answer.replayed)
        let seen = StubProtocol.seen(host)
        #expect(seen.count == 2)
        #expect(seen[0].headers["Idempotency-Key"] == seen[1].headers["Idempotency-Key"])
        #expect(seen[0].body == seen[1].body)
        #expect(recorder.waits == [.seconds(3)])
    }

    @Test("503 honours Retry-After, then answers; the same key throughout")
    func unavailableHonoursRetryAfter() async throws {
        let unavailable =
            #"{"error":"Usage store unavailable; retry with the same Idempotency-Key, which is not charged twice","code":"unavailable","retryAfter":2}"#
        let host = StubProtocol.host([
            .json(503, unavailable, headers: ["Retry-After": "2"]), .json(200, questionsBody),
        ])
        let recorder = Recorder()
        _ = try await recorder.client(host).generateQuestions(topic: "the harbour")
        let keys = StubProtocol.seen(host).compactMap { $0.headers["Idempotency-Key"] }
        #expect(keys.count == 2 && Set(keys).count == 1)
        #expect(recorder.waits == [.seconds(2)])
    }

    @Test("API Gateway's throttling (REST's code, or an HTTP API's bare 429) waits Retry-After and retries")
    func throttled() async throws {
        let host = StubProtocol.host([
            .json(429, #"{"error":"Too Many Requests","code":"throttled"}"#, headers: ["Retry-After": "1"]),
            .json(429, #"{"message":"Too Many Requests"}"#), .json(200, questionsBody),
        ])
        let recorder = Recorder()
        _ = try await recorder.client(host).generateQuestions(topic: "t")
        #expect(recorder.waits == [.seconds(1), .seconds(1)], "Retry-After, then the backoff's second wait")
        let keys = StubProtocol.seen(host).compactMap { $0.headers["Idempotency-Key"] }
        #expect(keys.count == 3 && Set(keys).count == 1)
    }

    @Test("a Retry-After beyond the policy's longest wait ends the call at once with unavailable")
    func retryAfterTooLong() async throws {
        let host = StubProtocol.host([
            .json(503, #"{"error":"x","code":"unavailable"}"#, headers: ["Retry-After": "120"])
        ])
        let recorder = Recorder()
        await #expect(throws: InkraClientError.unavailable(retryAfter: 120)) {
            try await recorder.client(host, policy: RetryPolicy(maximumWait: .seconds(30))).usage()
        }
        #expect(StubProtocol.seen(host).count == 1)
        #expect(recorder.waits.isEmpty)
    }

    @Test("503s without end stop after maximumAttempts, with backoff when no Retry-After is given")
    func attemptsBounded() async throws {
        let reply = StubProtocol.Reply.json(503, #"{"error":"x","code":"unavailable"}"#)
        let host = StubProtocol.host(Array(repeating: reply, count: 5))
        let recorder = Recorder()
        let policy = RetryPolicy(maximumAttempts: 3, maximumWait: .seconds(30), initialBackoff: .seconds(1))
        await #expect(throws: InkraClientError.unavailable(retryAfter: nil)) {
            try await recorder.client(host, policy: policy).generateQuestions(topic: "t")
        }
        #expect(StubProtocol.seen(host).count == 3)
        #expect(recorder.waits == [.seconds(1), .seconds(2)])
    }

    @Test(
        "a lost answer is retried with the same key",
        arguments: [URLError.Code.networkConnectionLost, .timedOut, .cannotConnectToHost])
    func lostAnswerRetried(_ code: URLError.Code) async throws {
        let host = StubProtocol.host([.fail(code), .json(200, questionsBody)])
        let recorder = Recorder()
        let answer = try await recorder.client(host).generateQuestions(topic: "t")
        #expect(answer.usage.used == 1)
        let keys = StubProtocol.seen(host).compactMap { $0.headers["Idempotency-Key"] }
        #expect(keys.count == 2 && Set(keys).count == 1)
        #expect(recorder.waits == [.milliseconds(500)])
    }

    @Test("answers lost on every attempt end with the network error")
    func lostEveryTime() async throws {
        let host = StubProtocol.host(Array(repeating: .fail(.timedOut), count: 4))
        let recorder = Recorder()
        await #expect(throws: InkraClientError.network(code: URLError.Code.timedOut.rawValue)) {
            try await recorder.client(host, policy: RetryPolicy(maximumAttempts: 2)).usage()
        }
        #expect(StubProtocol.seen(host).count == 2)
    }

    @Test("a 401 asks once for a fresh token and retries once with it")
    func unauthorizedRefreshesOnce() async throws {
        let unauthorized = #"{"error":"Unauthorized","code":"unauthorized"}"#
        let host = StubProtocol.host([.json(401, unauthorized), .json(200, questionsBody)])
        let recorder = Recorder()
        _ = try await recorder.client(host).generateQuestions(topic: "t")
        #expect(recorder.refreshes == [false, true])
        let seen = StubProtocol.seen(host)
        #expect(seen.map { $0.headers["Authorization"] } == ["Bearer token-1", "Bearer token-2"])
        #expect(seen[0].headers["Idempotency-Key"] == seen[1].headers["Idempotency-Key"])
    }

    @Test("a 401 with the fresh token too is signedOut, after exactly two requests")
    func unauthorizedTwice() async throws {
        let unauthorized = #"{"error":"Unauthorized","code":"unauthorized"}"#
        let host = StubProtocol.host([.json(401, unauthorized), .json(401, unauthorized), .json(200, questionsBody)])
        let recorder = Recorder()
        await #expect(throws: InkraClientError.signedOut) { try await recorder.client(host).usage() }
        #expect(recorder.refreshes == [false, true])
        #expect(StubProtocol.seen(host).count == 2)
    }

    @Test("an HTTP API's 403 without a code asks for a fresh token, then is a denial; access_denied asks none")
    func forbidden() async throws {
        let forbidden = StubProtocol.host([
            .json(403, #"{"message":"Forbidden"}"#), .json(403, #"{"message":"Forbidden"}"#),
        ])
        let recorder = Recorder()
        await #expect(throws: InkraClientError.accessDenied) { try await recorder.client(forbidden).usage() }
        #expect(recorder.refreshes == [false, true])
        let denied = StubProtocol.host([.json(403, #"{"error":"User is not authorized","code":"access_denied"}"#)])
        let other = Recorder()
        await #expect(throws: InkraClientError.accessDenied) { try await other.client(denied).usage() }
        #expect(other.refreshes == [false])
    }

    @Test("cancelling a call while it waits ends it with CancellationError, and nothing more is sent")
    func cancelledWhileWaiting() async throws {
        let host = StubProtocol.host([
            .json(503, #"{"error":"x","code":"unavailable"}"#, headers: ["Retry-After": "1"]),
            .json(200, questionsBody),
        ])
        let (waiting, waits) = AsyncStream.makeStream(of: Void.self)
        let client = InkraClient(
            baseURL: URL(string: "https://\(host)")!, session: StubProtocol.session(),
            usageTracker: UsageTracker(now: { Date() }),
            sleep: { _ in
                waits.yield()
                try await Task.sleep(for: .seconds(3600))
            }, token: { _ in "token" })
        let call = Task { try await client.generateQuestions(topic: "t") }
        for await _ in waiting { break }
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(StubProtocol.seen(host).count == 1)
    }

    @Test("the token provider's own error ends the call unchanged, before any request")
    func tokenProviderFails() async throws {
        struct NotSignedIn: Error {}
        let host = StubProtocol.host([.json(200, questionsBody)])
        let client = InkraClient(
            baseURL: URL(string: "https://\(host)")!, session: StubProtocol.session(),
            usageTracker: UsageTracker(now: { Date() })
        ) { _ in
            throw NotSignedIn()
        }
        await #expect(throws: NotSignedIn.self) { try await client.generateQuestions(topic: "t") }
        #expect(StubProtocol.seen(host).isEmpty)
    }

    static let refusals: [(Int, String, InkraClientError)] = [
        (
            429,
            #"{"error":"Monthly quota exceeded","code":"quota_exceeded","window":"month","limit":5,"retryAfter":1036800,"used":5,"resetDate":"2026-12-01","upgradeUrl":"https://inkra.app/premium"}"#,
            .quotaExceeded(
                limit: 5, used: 5, resetDate: Date(timeIntervalSince1970: 1_796_083_200), retryAfter: 1_036_800,
                upgradeURL: URL(string: "https://inkra.app/premium"))
        ),
        (
            429, #"{"error":"Daily limit exceeded","code":"rate_limited","window":"day","limit":3,"retryAfter":43200}"#,
            .rateLimited(window: .day, limit: 3, retryAfter: 43200)
        ),
        (
            429,
            #"{"error":"Hourly limit exceeded","code":"rate_limited","window":"hour","limit":2,"retryAfter":2400}"#,
            .rateLimited(window: .hour, limit: 2, retryAfter: 2400)
        ),
        (
            400, #"{"error":"topic must not be empty","code":"invalid_request"}"#,
            .invalidRequest(message: "topic must not be empty")
        ),
        (422, #"{"error":"x","code":"idempotency_key_reused"}"#, .idempotencyKeyReused),
        (502, #"{"error":"Question generation failed","code":"generation_failed"}"#, .generationFailed),
        (500, #"{"error":"x","code":"internal_error"}"#, .serverFailure(status: 500, code: "internal_error")),
        (
            500, #"{"error":"x","code":"authorizer_unavailable"}"#,
            .serverFailure(status: 500, code: "authorizer_unavailable")
        ),
        (413, #"{"error":"Request too large","code":"request_rejected"}"#, .requestRejected(status: 413)),
        (418, #"{"error":"I'm a teapot","code":"teapot"}"#, .unexpected(status: 418, code: "teapot")),
        (502, "<html>Bad Gateway</html>", .unexpected(status: 502, code: nil)),
        (
            429, #"{"error":"x","code":"rate_limited","window":"week","limit":9,"retryAfter":1}"#,
            .unexpected(status: 429, code: "rate_limited")
        ),
    ]

    @Test("each stable code becomes its case; an unknown code or body becomes unexpected", arguments: refusals)
    func errorMapping(_ status: Int, _ body: String, _ expected: InkraClientError) async throws {
        let host = StubProtocol.host([.json(status, body)])
        let recorder = Recorder()
        await #expect(throws: expected) { try await recorder.client(host).generateQuestions(topic: "t") }
        #expect(StubProtocol.seen(host).count == 1, "a refusal that needs a fix is not retried")
        #expect(recorder.waits.isEmpty)
    }

    @Test("a 200 whose body is not the API's is unexpected, not a crash")
    func unreadableSuccess() async throws {
        let host = StubProtocol.host([.json(200, #"{"questions":"none"}"#)])
        await #expect(throws: InkraClientError.unexpected(status: 200, code: nil)) {
            try await Recorder().client(host).generateQuestions(topic: "t")
        }
    }
}
