import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTesting
import InkraTime
import InkraUsage
import SingleTable
import Testing

/// What a client of the deployed stack relies on beyond the happy path: the request's deadline,
/// idempotency that keeps no content, bounded input, and a stable error code in every body.
@Suite("generateQuestions in production: deadline, idempotency, bounds and codes")
struct ProductionContractTests {
    let caller = Fixtures.lambdaContext("u1")

    @Test("Past the request's deadline the answer is 503 with Retry-After, and the unit is given back")
    func deadline() async throws {
        var harness = Harness()
        // A model that answers only after a day: any answer within the test is the deadline's,
        // however busy the machine (no timer to race).
        harness.generator = ScriptedGenerator(repeating: .delayed(.seconds(86_400), .template))
        let event = ProxyEvent.rest(body: #"{"topic":"a slow model"}"#, authorizer: caller)
        let reply = try await harness.generate(event, deadline: ContinuousClock.now.advanced(by: .milliseconds(300)))
        #expect(reply.statusCode == 503)
        #expect(reply.body["code"] == "unavailable")
        #expect(reply.headers["Retry-After"] == "2")
        #expect(try await harness.item(userPartition("u1"), "USAGE#2026-03")?["interviewCount"] == .n(0))
        #expect(try await harness.item(userPartition("u1"), "RATELIMIT#2026-03-10T10")?["requestCount"] == .n(0))
    }

    @Test("A request that arrives past its deadline consumes nothing")
    func arrivesLate() async throws {
        let harness = Harness()
        let reply = try await harness.generate(
            ProxyEvent.rest(body: #"{"topic":"late"}"#, authorizer: caller), deadline: ContinuousClock.now)
        #expect(reply.statusCode == 503)
        #expect(harness.table.snapshot().isEmpty)
    }

    @Test(
        "The same Idempotency-Key with another body is 422; a concurrent one with the same body is 409",
        .timeLimit(.minutes(10)))
    func idempotencyCodes() async throws {
        // The first stays in generation, holding its mark, until both others are answered.
        let held = HeldGenerator()
        var slow = Harness()
        slow.generator = held
        let harness = slow
        let first = ProxyEvent.rest(body: #"{"topic":"one"}"#, headers: ["Idempotency-Key": "k"], authorizer: caller)
        let other = ProxyEvent.rest(body: #"{"topic":"two"}"#, headers: ["Idempotency-Key": "k"], authorizer: caller)
        async let running = harness.generate(first)
        await held.entered()
        let concurrent = try await harness.generate(first)
        #expect(concurrent.statusCode == 409)
        #expect(concurrent.body["code"] == "idempotency_conflict")
        // When to retry: when the first one's lease runs out (32 s without a deadline), in the
        // header and the body alike.
        #expect(concurrent.headers["Retry-After"] == "32")
        #expect(concurrent.body["retryAfter"] == 32)
        let reused = try await harness.generate(other)
        #expect(reused.statusCode == 422)
        #expect(reused.body["code"] == "idempotency_key_reused")
        held.release()
        #expect(try await running.statusCode == 200)
        let afterwards = try await harness.generate(other)
        #expect(afterwards.statusCode == 422)
        #expect(try await harness.item(userPartition("u1"), "USAGE#2026-03")?["interviewCount"] == .n(1))
    }

    @Test("No topic word and no question is left in any attribute of the table after idempotent requests")
    func tableKeepsNoContent() async throws {
        let harness = Harness()
        let caller = Fixtures.lambdaContext("u1", tier: "premium")
        let topics = ["zanzibar marmalade workshop", "quetzalcoatl birthday", "überraschung für oma"]
        var questions: [String] = []
        for (index, topic) in topics.enumerated() {
            let body = (["topic": .string(topic)] as JSONValue).jsonString
            let event = ProxyEvent.rest(body: body, headers: ["Idempotency-Key": "key-\(index)"], authorizer: caller)
            let reply = try await harness.generate(event)
            #expect(reply.statusCode == 200)
            questions += reply.body["questions"]?.array?.compactMap { $0.string } ?? []
            #expect(try await harness.generate(event).body == reply.body, "a repeat still gets its answer")
        }
        #expect(questions.count >= 9)
        let dump = harness.table.snapshot().map { item in
            item.values.map { "\($0)" }.joined(separator: " ") + " " + item.keys.joined(separator: " ")
        }.joined(separator: "\n")
        for word in topics.flatMap({ $0.split(separator: " ") }) {
            #expect(!dump.contains(word), "the table holds the topic word \(word)")
        }
        for question in questions { #expect(!dump.contains(question)) }
        #expect(!dump.contains("key-0"), "the table holds the Idempotency-Key")
    }

    @Test(
        "A topic is bounded in UTF-8 bytes as well as characters, and refused before anything is consumed",
        arguments: [
            (String(repeating: "a\u{301}", count: 700), "at most 2000 bytes"),  // 700 characters, 2100 bytes
            ("e" + String(repeating: "\u{301}", count: 32_000), "at most 2000 bytes"),  // one character, 64 KB
            (String(repeating: "é", count: 501), "at most 500 characters"),  // 1002 bytes
        ])
    func topicBounds(topic: String, message: String) async throws {
        let harness = Harness()
        let body = (["topic": .string(topic)] as JSONValue).jsonString
        let reply = try await harness.generate(ProxyEvent.rest(body: body, authorizer: caller))
        #expect(reply.statusCode == 400)
        #expect(reply.body["code"] == "invalid_request")
        #expect(reply.error?.contains(message) == true, "\(reply)")
        #expect(harness.table.snapshot().isEmpty)
    }

    @Test("A 500-character topic of four-byte characters is accepted")
    func longestTopic() async throws {
        let harness = Harness()
        let body = (["topic": .string(String(repeating: "😀", count: 500))] as JSONValue).jsonString
        #expect(try await harness.generate(ProxyEvent.rest(body: body, authorizer: caller)).statusCode == 200)
    }
}
