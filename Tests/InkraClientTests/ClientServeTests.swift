import Foundation
import HTTPText
import InkraTestSupport
import NIOHTTP1
import OutboundHTTP
import Synchronization
import Testing

@testable import InkraClient

/// `InkraClient` against the whole stack: the built `inkra-emulator serve` (authorizer, functions,
/// usage store), as the REST API (`--payload v1`) and as the HTTP API (`v2`), with development
/// tokens minted at the stack's virtual time.
@Suite("InkraClient against serve", .serialized)
struct ClientServeTests {
    static let payloads = ["v1", "v2"]

    /// A client of `base` (serve, or a proxy in front of it) with `minter`'s tokens; its waits are recorded, not slept.
    static func client(_ base: URL, _ minter: TokenMinter, _ recorder: Recorder) -> InkraClient {
        InkraClient(
            baseURL: base, usageTracker: UsageTracker(now: { Date() }), sleep: { recorder.record($0) },
            token: { try await minter.token(forceRefresh: $0) })
    }

    @Test(
        "a free user's day: two calls, the hour's 429, the next hour's call, the day's 429; the next day admitted",
        .timeLimit(.minutes(10)), arguments: payloads)
    func freeUsersDay(payload: String) async throws {
        try await ServedStack.with(payload: payload, now: "2026-11-17T09:00:00Z") { stack in
            let minter = stack.tokens(for: "day-\(payload)")
            let recorder = Recorder()
            let client = Self.client(stack.api, minter, recorder)

            let fresh = try await client.usage()
            #expect(fresh.tier == "free")
            #expect(fresh.monthly == MonthlyUsage(used: 0, limit: 5, remaining: 5))
            #expect(fresh.daily.limit == 3 && fresh.hourly.limit == 2)

            for used in 1...2 {
                let answer = try await client.generateQuestions(topic: "my first job", length: .short)
                #expect(answer.questions.count == 3)
                #expect(answer.usage == MonthlyUsage(used: used, limit: 5, remaining: 5 - used))
            }
            let hourFull = await #expect(throws: InkraClientError.self) {
                try await client.generateQuestions(topic: "my first job")
            }
            guard case .rateLimited(.hour, 2, let untilNextHour)? = hourFull else {
                Issue.record("expected the hour's 429, got \(String(describing: hourFull))")
                return
            }
            #expect((1...3600).contains(untilNextHour))
            // What the app shows its user, as Foundation gives any error's text.
            let shown = try #require(hourFull).localizedDescription
            #expect(shown.hasPrefix("You have reached the limit of 2 interviews per hour. Try again in "), "\(shown)")
            #expect(!shown.contains("The operation could not be completed") && !shown.contains("InkraClientError"))

            try await stack.advance("PT1H")
            let third = try await client.generateQuestions(topic: "my first job", count: 2)
            #expect(third.usage.used == 3 && third.questions.count == 2)
            let dayFull = await #expect(throws: InkraClientError.self) {
                try await client.generateQuestions(topic: "my first job")
            }
            guard case .rateLimited(.day, 3, let untilMidnight)? = dayFull else {
                Issue.record("expected the day's 429, got \(String(describing: dayFull))")
                return
            }
            // From 10:00 and a few seconds to midnight: 14 hours, less what the test took.
            #expect((13 * 3600...14 * 3600).contains(untilMidnight))
            #expect(await client.usageTracker.snapshot?.daily?.used == 3)
            #expect(await client.usageTracker.snapshot?.monthly?.used == 3)

            // The next day: the token minted yesterday has expired, so the authorizer refuses it and
            // the client asks the provider for a fresh one, once.
            try await stack.advance("PT15H")
            let mintedBefore = minter.minted
            let nextDay = try await client.generateQuestions(topic: "my first job")
            #expect(nextDay.usage == MonthlyUsage(used: 4, limit: 5, remaining: 1))
            #expect(minter.minted == mintedBefore + 1, "the expired token was replaced once")
            let usage = try await client.usage()
            #expect(usage.daily.used == 1 && usage.hourly.used == 1 && usage.monthly.used == 4)
            #expect(recorder.waits.isEmpty, "nothing in a normal day is retried")
        }
    }

    @Test(
        "a lost answer is retried with the same key: one unit charged, the recorded answer replayed",
        .timeLimit(.minutes(10)), arguments: payloads)
    func lostAnswer(payload: String) async throws {
        try await ServedStack.with(payload: payload, now: "2026-11-17T09:00:00Z") { stack in
            let proxy = try await FaultyProxy(upstream: stack.api) { number in number == 1 ? .loseAnswer : .forward }
            defer { proxy.shutdown() }
            let recorder = Recorder()
            let client = Self.client(proxy.url, stack.tokens(for: "lost-\(payload)"), recorder)

            let answer = try await client.generateQuestions(topic: "the harbour", length: .short)
            #expect(answer.replayed, "the second attempt got the first one's recorded answer")
            #expect(answer.questions == proxy.lostAnswerQuestions)
            let posts = proxy.requests.filter { $0.method == "POST" }
            #expect(posts.count == 2)
            let keys = posts.compactMap { $0.header("Idempotency-Key") }
            #expect(keys.count == 2 && Set(keys).count == 1)
            #expect(posts[0].body == posts[1].body)
            #expect(
                recorder.waits == [RetryPolicy.standard.initialBackoff], "the client's own retry, after its backoff")
            let usage = try await client.usage()
            #expect(usage.monthly.used == 1 && usage.daily.used == 1 && usage.hourly.used == 1, "charged once")
        }
    }

    @Test(
        "a 503 with Retry-After is waited out, then the same call is answered and charged once",
        .timeLimit(.minutes(10)), arguments: payloads)
    func unavailableHonoured(payload: String) async throws {
        try await ServedStack.with(payload: payload, now: "2026-11-17T09:00:00Z") { stack in
            let proxy = try await FaultyProxy(upstream: stack.api) { number in
                number == 1 ? .unavailable(retryAfter: 7) : .forward
            }
            defer { proxy.shutdown() }
            let recorder = Recorder()
            let client = Self.client(proxy.url, stack.tokens(for: "busy-\(payload)"), recorder)

            let answer = try await client.generateQuestions(topic: "the harbour")
            #expect(!answer.replayed)
            #expect(answer.usage.used == 1)
            #expect(recorder.waits == [.seconds(7)])
            let keys = proxy.requests.filter { $0.method == "POST" }.compactMap { $0.header("Idempotency-Key") }
            #expect(keys.count == 2 && Set(keys).count == 1)
            #expect(try await client.usage().monthly.used == 1)
        }
    }
}

/// A proxy in front of `serve` that, for the `n`th `POST /questions`, forwards it, or forwards it
/// and closes the connection instead of answering (the answer lost on its way back, the call
/// charged), or answers 503 `unavailable` itself with `Retry-After`.
final class FaultyProxy: Sendable {
    enum Fault: Sendable {
        case forward
        case loseAnswer
        case unavailable(retryAfter: Int)
    }

    /// What the proxy counted and kept.
    private final class Log: Sendable {
        let state = Mutex((posts: 0, lost: [String]()))
    }

    private let server: StubHTTPServer
    private let log = Log()

    var url: URL { URL(string: "http://127.0.0.1:\(server.port)")! }
    var requests: [StubHTTPServer.Request] { server.requests }
    /// The questions of the answer the proxy lost.
    var lostAnswerQuestions: [String] { log.state.withLock { $0.lost } }

    init(upstream: URL, fault: @escaping @Sendable (_ post: Int) -> Fault) async throws {
        let client = OutboundHTTPClient()
        let log = log
        server = try await StubHTTPServer { request in
            let number =
                request.method == "POST"
                ? log.state.withLock {
                    $0.posts += 1
                    return $0.posts
                } : 0
            let chosen = number == 0 ? .forward : fault(number)
            if case .unavailable(let seconds) = chosen {
                return StubHTTPServer.Answer(
                    status: 503, headers: [("Content-Type", "application/json"), ("Retry-After", String(seconds))],
                    body:
                        #"{"error":"Usage store unavailable; nothing was charged","code":"unavailable","retryAfter":\#(seconds)}"#
                )
            }
            guard let target = HTTPURL(string: upstream.absoluteString + request.uri) else {
                return .json(599, #"{"error":"bad uri"}"#)
            }
            let headers = request.headers.filter {
                !["host", "content-length", "connection"].contains($0.0.lowercased())
            }
            do {
                let response = try await client.execute(
                    OutboundRequest(
                        method: HTTPMethod(rawValue: request.method), url: target, headers: headers, body: request.body),
                    timeout: .seconds(60))
                if case .loseAnswer = chosen {
                    let questions = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?[
                        "questions"]
                    log.state.withLock { $0.lost = questions as? [String] ?? [] }
                    return .dropped
                }
                let relayed = ["Content-Type", "Retry-After", "Idempotent-Replayed"].compactMap { name in
                    response.headers.first(name: name).map { (name, $0) }
                }
                return StubHTTPServer.Answer(
                    status: response.status, headers: relayed, body: String(decoding: response.body, as: UTF8.self))
            } catch {
                return .json(599, #"{"error":"upstream failed"}"#)
            }
        }
    }

    func shutdown() { server.shutdown() }
}

extension StubHTTPServer.Request {
    /// A header's value, its name in any case.
    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}
