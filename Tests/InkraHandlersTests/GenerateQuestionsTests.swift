import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTesting
import InkraTime
import InkraUsage
import SingleTable
import Testing

@Suite("generateQuestions")
struct GenerateQuestionsTests {
    let harness = Harness()
    let caller = Fixtures.lambdaContext("u1")

    @Test("A REST v1 event with a base64 body, as sam generates it")
    func base64Body() async throws {
        let reply = try await harness.generate(
            ProxyEvent.rest(
                body: #"{"topic":"my grandmother's garden","length":"short"}"#,
                base64: true,
                authorizer: caller
            )
        )
        #expect(reply.statusCode == 200)
        let list = try #require(reply.body["questions"]?.array)
        let questions = list.compactMap { $0.string }
        #expect(questions.count == 3)
        #expect(Set(questions).count == 3)
        #expect(reply.headers["Content-Type"] == "application/json")
    }

    @Test("An HTTP API v2 event with a plain body and an explicit count")
    func httpEvent() async throws {
        let reply = try await harness.generate(
            ProxyEvent.http(body: #"{"topic":"learning to sail","count":8}"#, authorizer: ["lambda": caller])
        )
        #expect(reply.statusCode == 200)
        #expect(reply.body["questions"]?.array?.count == 8)
    }

    @Test(
        "Bad bodies are 400 naming the field, and consume nothing",
        arguments: [
            (nil, "body is required"),
            ("", "body is required"),
            ("{not json", "body is not valid JSON"),
            ("[1,2]", "body must be a JSON object"),
            ("{}", "topic is required"),
            (#"{"topic":null}"#, "topic is required"),
            (#"{"topic":"   "}"#, "topic must not be empty"),
            (#"{"topic":42}"#, "topic must be a string"),
            (#"{"topic":"x","count":0}"#, "count must be between 1 and 20"),
            (#"{"topic":"x","count":21}"#, "count must be between 1 and 20"),
            (#"{"topic":"x","count":2.5}"#, "count must be an integer"),
            (#"{"topic":"x","count":"3"}"#, "count must be an integer"),
            (#"{"topic":"x","length":"epic"}"#, "length must be one of short, medium, long"),
            (#"{"topic":"x","length":3}"#, "length must be a string"),
            (#"{"topic":"x","language":7}"#, "language must be a string"),
        ] as [(String?, String)]
    )
    func badBodies(body: String?, message: String) async throws {
        let reply = try await harness.generate(ProxyEvent.rest(body: body, authorizer: caller))
        #expect(reply.statusCode == 400)
        #expect(reply.error?.hasPrefix(message) == true, "\(reply)")
        #expect(harness.table.snapshot().isEmpty)
    }

    @Test("Topic length: 500 characters pass, in one byte or two each; 501 are refused")
    func topicLength() async throws {
        for ok in [String(repeating: "a", count: 500), String(repeating: "é", count: 500)] {
            #expect(
                try await harness.generate(ProxyEvent.rest(body: #"{"topic":"\#(ok)"}"#, authorizer: caller)).statusCode
                    == 200)
        }
        let long = String(repeating: "é", count: 501)
        let reply = try await harness.generate(ProxyEvent.rest(body: #"{"topic":"\#(long)"}"#, authorizer: caller))
        #expect(reply.statusCode == 400)
        #expect(reply.error?.hasPrefix("topic must be at most 500 characters") == true)
    }

    @Test("A body over 64 KiB is refused")
    func oversizedBody() async throws {
        let padding = String(repeating: " ", count: 64 * 1024)
        let reply = try await harness.generate(ProxyEvent.rest(body: #"{"topic":"x"\#(padding)}"#, authorizer: caller))
        #expect(reply.statusCode == 400)
        #expect(reply.error?.contains("at most 65536 bytes") == true)
        #expect(harness.table.snapshot().isEmpty)
    }

    @Test("A base64 body that does not decode is 400")
    func badBase64() async throws {
        var event = ProxyEvent.rest(body: "x", authorizer: caller)
        event.set("%%%not base64%%%", at: ["body"])
        event.set(true, at: ["isBase64Encoded"])
        let reply = try await harness.generate(event)
        #expect(reply.statusCode == 400)
        #expect(reply.error?.contains("base64") == true)
    }

    @Test(
        "No identity is 401 and consumes nothing",
        arguments: [nil, [:], ["lambda": [:]], ["claims": ["email": "x"]]] as [JSONValue?])
    func noIdentity(authorizer: JSONValue?) async throws {
        let reply = try await harness.generate(ProxyEvent.rest(body: #"{"topic":"x"}"#, authorizer: authorizer))
        #expect(reply.statusCode == 401)
        #expect(reply.body == ["error": "Unauthorized", "code": "unauthorized"])
        #expect(harness.table.snapshot().isEmpty)
    }

    @Test(
        "Identity from each of API Gateway's four authorizer shapes",
        arguments: [
            (["principalId": "a", "userId": "a", "tier": "premium", "quota": "999999"], "a", 999_999),
            (["claims": ["sub": "b", "custom:subscription_tier": "premium"]], "b", 999_999),
            (["claims": ["sub": "b2", "cognito:groups": "premium_tier,beta"]], "b2", 999_999),
            (["lambda": ["userId": "c", "tier": "free", "quota": 7]], "c", 7),
            (["jwt": ["claims": ["sub": "d", "cognito:groups": "[premium_tier]"], "scopes": nil]], "d", 999_999),
            (["jwt": ["claims": ["sub": "e", "custom:tier": "gold"]]], "e", 5),
        ] as [(JSONValue, String, Int)]
    )
    func identities(authorizer: JSONValue, user: String, monthly: Int) async throws {
        let reply = try await harness.generate(
            ProxyEvent.http(body: #"{"topic":"x","count":1}"#, authorizer: authorizer))
        #expect(reply.statusCode == 200)
        #expect(reply.body["usage"]?["limit"] == .number(monthly))
        #expect(try await harness.item(userPartition(user), "USAGE#2026-03")?["interviewCount"] == .n(1))
    }

    @Test("An idempotent repeat returns the first response and consumes nothing")
    func idempotentRepeat() async throws {
        let event = ProxyEvent.rest(body: #"{"topic":"x"}"#, headers: ["Idempotency-Key": "req-1"], authorizer: caller)
        let first = try await harness.generate(event)
        harness.clock.set("2026-03-10T10:05:00Z")
        let again = try await harness.generate(event)
        #expect(first.statusCode == 200)
        #expect(again.statusCode == 200)
        #expect(again.body == first.body)
        #expect(again.headers["Idempotent-Replayed"] == "true")
        #expect(try await harness.item(userPartition("u1"), "USAGE#2026-03")?["interviewCount"] == .n(1))
        let other = ProxyEvent.rest(body: #"{"topic":"x"}"#, headers: ["idempotency-key": "req-2"], authorizer: caller)
        #expect(try await harness.generate(other).body["usage"]?["used"] == 2)
    }

    @Test("50 concurrent requests with one Idempotency-Key consume one unit; each answer is the first or 409")
    func idempotencyUnderLoad() async throws {
        var slow = Harness()
        slow.generator = ScriptedGenerator(repeating: .delayed(.milliseconds(30), .template))
        let harness = slow
        let event = ProxyEvent.rest(
            body: #"{"topic":"x","count":3}"#,
            headers: ["Idempotency-Key": "burst-1"],
            authorizer: caller
        )
        let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
            for _ in 0..<50 { group.addTask { try await harness.generate(event) } }
            return try await group.reduce(into: [Reply]()) { $0.append($1) }
        }
        let successes = replies.filter { $0.statusCode == 200 }
        let conflicts = replies.filter { $0.statusCode == 409 }
        #expect(successes.count + conflicts.count == 50, "\(replies)")
        #expect(!successes.isEmpty)
        #expect(Set(successes.map(\.body.jsonString)).count == 1, "every 200 is the first response")
        #expect(successes.filter { $0.headers["Idempotent-Replayed"] == nil }.count == 1)
        #expect(conflicts.allSatisfy { $0.error?.contains("Idempotency-Key") == true })
        #expect(try await harness.item(userPartition("u1"), "USAGE#2026-03")?["interviewCount"] == .n(1))
        #expect(try await harness.item(userPartition("u1"), "RATELIMIT#2026-03-10")?["requestCount"] == .n(1))
        #expect(try await harness.item(userPartition("u1"), "RATELIMIT#2026-03-10T10")?["requestCount"] == .n(1))
        // Once the first has finished, a repeat is answered with it.
        let after = try await harness.generate(event)
        #expect(after.statusCode == 200)
        #expect(after.body == successes[0].body)
    }

    @Test(
        "Idempotency keys must be 1–128 printable characters",
        arguments: ["", String(repeating: "k", count: 129), "a\u{7}b"])
    func badIdempotencyKey(key: String) async throws {
        let event = ProxyEvent.rest(body: #"{"topic":"x"}"#, headers: ["Idempotency-Key": key], authorizer: caller)
        let reply = try await harness.generate(event)
        #expect(reply.statusCode == 400)
        #expect(reply.error?.contains("Idempotency-Key") == true)
        #expect(harness.table.snapshot().isEmpty)
    }

    @Test("A store failure is 503 and nothing is consumed or generated")
    func storeFailure() async throws {
        let table = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
        let function = GenerateQuestions(
            store: TableUsageStore(table: ReadOnlyTable(base: table), tableName: "inkra-usage"),
            generator: TemplateQuestionGenerator()
        )
        let reply = try Reply(
            await function.handle(
                ProxyEvent.rest(body: #"{"topic":"x"}"#, authorizer: caller),
                context: InvocationContext(time: instant("2026-03-10T10:00:00Z"))))
        #expect(reply.statusCode == 503)
        #expect(reply.body == ["error": "Usage store unavailable", "code": "unavailable", "retryAfter": 2])
        #expect(reply.headers["Retry-After"] == "2")
        #expect(table.snapshot().isEmpty)
    }

    @Test("A generator failure is 502 and the unit is given back")
    func generatorFailure() async throws {
        var harness = Harness()
        harness.generator = ScriptedGenerator(repeating: .failure)
        let reply = try await harness.generate(
            ProxyEvent.rest(body: #"{"topic":"x"}"#, headers: ["Idempotency-Key": "g1"], authorizer: caller)
        )
        #expect(reply.statusCode == 502)
        #expect(reply.body == ["error": "Question generation failed", "code": "generation_failed"])
        #expect(try await harness.item(userPartition("u1"), "USAGE#2026-03")?["interviewCount"] == .n(0))
        #expect(try await harness.item(userPartition("u1"), "RATELIMIT#2026-03-10")?["requestCount"] == .n(0))
        #expect(try await harness.item(userPartition("u1"), "RATELIMIT#2026-03-10T10")?["requestCount"] == .n(0))
        #expect(harness.table.snapshot().allSatisfy { $0["SK"]?.stringValue?.hasPrefix("IDEMPOTENCY#") != true })
    }

    @Test("An event that is not an object fails the invocation with a message naming the problem")
    func notAnObject() async throws {
        await #expect(throws: FunctionError.self) {
            try await harness.generateQuestions.handle([1, 2], context: harness.clock.context)
        }
        do {
            _ = try await harness.generateQuestions.handle(bytes: Array("{oops".utf8), context: harness.clock.context)
            Issue.record("expected a failure")
        } catch {
            #expect(error.errorType == "InvalidEvent")
            #expect(error.errorMessage.contains("not valid JSON"))
        }
    }
}
