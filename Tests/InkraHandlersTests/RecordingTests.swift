import Foundation
import InkraHandlers
import InkraJSON
import InkraTesting
import InkraUsage
import Testing

/// `INKRA_RECORD_EVENTS`' allow-list: a recorded event replays to the outcome the original had, and
/// its line holds no credential, topic, question, email, user id, idempotency key, device id,
/// client address or agent.
@Suite("Recording")
struct RecordingTests {
    /// What the recorder keeps, keyed as a runtime outside Lambda keys it.
    static let redaction = RecordingRedaction(secret: .development)
    static let token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1MSIsImVtYWlsIjoiYWRhQGV4YW1wbGUuY29tIn0.c2lnbmF0dXJl"
    static let email = "ada.lovelace@example.com"
    static let address = "198.51.100.77"
    static let agent = "Inkra/9.9 (iPhone; iOS 19.0; private-device)"
    static let user = "user-private-7f3a"

    /// An event as it arrives with its private parts: token (also twice in `multiValueHeaders`),
    /// cookie, API key, client address and agent, and the authorizer's email.
    static func event(body: String?, base64: Bool = false, http: Bool = false) -> JSONValue {
        let caller = Fixtures.lambdaContext(user, email: email)
        let headers = [
            "Authorization": "Bearer \(token)", "Cookie": "session=\(token)", "X-Api-Key": "key-\(token.prefix(12))",
            "User-Agent": agent, "X-Forwarded-For": "\(address), 130.176.88.12", "X-Real-IP": address,
            "Forwarded": "for=\(address)", "Content-Type": "application/json", "X-Device-Id": "device-\(address)",
        ]
        var event =
            http
            ? ProxyEvent.http(body: body, headers: headers, base64: base64, authorizer: ["lambda": caller])
            : ProxyEvent.rest(body: body, headers: headers, base64: base64, authorizer: caller)
        event.set(
            .array([.string("Bearer \(token)"), .string("Bearer \(token)")]),
            at: ["multiValueHeaders", "authorization"])
        event.set(.string(address), at: ["requestContext", "identity", "sourceIp"])
        event.set(.string(agent), at: ["requestContext", "identity", "userAgent"])
        event.set(.string(address), at: ["requestContext", "http", "sourceIp"])
        return event
    }

    /// Runs the original and the redacted event on fresh tables; returns both results and the
    /// recording's lines.
    func replayBoth(_ event: JSONValue) async throws -> (JSONValue, JSONValue, [String]) {
        let original = try await Harness().generateQuestions.handle(event, context: Harness().clock.context)
        let redacted = Self.redaction.event(event)
        let replayed = try await Harness().generateQuestions.handle(redacted, context: Harness().clock.context)
        let recording = Recording(
            function: "generateQuestions", requestID: "r-1", epochMilliseconds: 1_794_823_320_123, event: redacted,
            response: RecordingRedaction.response(original))
        let lines =
            RecordingLines.lines(for: recording, json: false, timestamp: "t")
            + RecordingLines.lines(for: recording, json: true, timestamp: "t")
        return (original, replayed, lines)
    }

    /// The status and body of a result, generated questions counted rather than compared.
    func outcome(_ result: JSONValue) throws -> JSONValue {
        let text = try #require(result["body"]?.string)
        var body = try JSONParser.parse(text)
        if let questions = body["questions"]?.array { body.set(.number(questions.count), at: ["questions"]) }
        return ["statusCode": result["statusCode"] ?? .null, "body": body]
    }

    func expectPrivate(_ lines: [String], _ values: [String]) {
        for line in lines {
            for value in values + [Self.token, Self.email, Self.address, Self.agent, Self.user] {
                #expect(!line.contains(value), "a recorded line holds \(value.prefix(40))")
            }
        }
    }

    @Test(
        "A topic of 500 characters, a non-ASCII one and a base64 body replay to the same outcome, and no line holds them",
        arguments: [
            (String(repeating: "my grandmother's garden ", count: 21).prefix(500).description, false, false),
            (String(repeating: "abcdefghij", count: 50) + "k", false, true),
            ("la infancia de mi abuela en Nápoles — 祖母の子供時代 👩‍👧", false, false),
            ("learning to sail in the archipelago", true, false),
            ("Ἀλέξανδρος ὁ Μέγας", true, true),
        ])
    func topics(topic: String, base64: Bool, http: Bool) async throws {
        let body = JSONValue.object(["topic": .string(topic), "count": 3, "length": "short", "language": "es"])
            .jsonString
        // The fixture encodes the body itself when base64 is set.
        let (original, replayed, lines) = try await replayBoth(Self.event(body: body, base64: base64, http: http))
        #expect(try outcome(original) == outcome(replayed))
        let text = try #require(original["body"]?.string)
        let questions = try JSONParser.parse(text)["questions"]?.array ?? []
        #expect(questions.isEmpty == (topic.count > 500))
        let encoded = Data(body.utf8).base64EncodedString()
        expectPrivate(lines, [topic] + questions.compactMap(\.string) + (base64 ? [encoded] : []))
        #expect(lines.allSatisfy { $0.contains("[redacted]") })
    }

    @Test(
        "Invalid, empty, blank, oversized and mistyped bodies stay so and replay to the same 400",
        arguments: [
            #"{"topic": "a secret topic","#, "", #"{"topic": "     "}"#, #"{"topic": secret}"#,
            #"{"topic": "secret", "count": "3"}"#, #"["secret topic"]"#,
            #"{"topic": "\u00e9\ud83d\ude00\n", "count": 0}"#,
            #"{"topic": "secret", "length": "huge"}"#, "not json at all, secret",
            #"{"topic": ""# + String(repeating: "é", count: 501) + #""}"#,
            #"{"topic": ""# + String(repeating: "𝒜", count: 600) + #""}"#,
        ])
    func badBodies(body: String) async throws {
        let (original, replayed, lines) = try await replayBoth(Self.event(body: body))
        #expect(original["statusCode"]?.int == 400)
        #expect(try outcome(original) == outcome(replayed))
        expectPrivate(lines, ["secret", "a secret topic"])
    }

    @Test("Only the headers replay needs stay, in every copy and case; the caller's limits stay, the user a pseudonym")
    func headers() throws {
        var event = Self.event(body: #"{"topic":"t"}"#)
        event.set(.array([.string("Bearer \(Self.token)")]), at: ["multiValueHeaders", "AUTHORIZATION"])
        event.set(.array([.string(Self.agent)]), at: ["multiValueHeaders", "user-agent"])
        let redacted = Self.redaction.event(event)
        let text = redacted.jsonString
        #expect(!text.contains(Self.token) && !text.contains(Self.agent) && !text.contains(Self.address))
        #expect(redacted["multiValueHeaders"]?["authorization"] == ["[redacted]", "[redacted]"])
        #expect(redacted["multiValueHeaders"]?["AUTHORIZATION"] == ["[redacted]"])
        #expect(redacted["headers"]?.object?.keys.sorted() == ["Authorization", "Content-Type"])
        #expect(redacted["headers"]?["Content-Type"] == "application/json")
        let copies = try #require(redacted["multiValueHeaders"]?.object?.keys)
        #expect(Set(copies.map { $0.lowercased() }) == ["authorization", "content-type"], "\(copies)")
        #expect(redacted["requestContext"]?["identity"] == nil)
        let context = try #require(redacted["requestContext"]?["authorizer"])
        #expect(context["principalId"] == .string(Self.redaction.user(Self.user)))
        #expect(context["userId"] == .string(Self.redaction.user(Self.user)))
        #expect(context["tier"] == "free")
        #expect(context["email"] == nil)
    }

    @Test("An Idempotency-Key becomes a pseudonym: one per key, a retry pairs with its call and replays as a repeat")
    func idempotencyKeys() async throws {
        func keyed(_ key: String) -> JSONValue {
            var event = Self.event(body: #"{"topic":"a walk in the hills"}"#)
            event.set(.string(key), at: ["headers", "Idempotency-Key"])
            event.set([.string(key)], at: ["multiValueHeaders", "Idempotency-Key"])
            return Self.redaction.event(event)
        }
        let first = keyed("client-key-1")
        let again = keyed("client-key-1")
        let other = keyed("client-key-2")
        let pseudonym = try #require(first["headers"]?["Idempotency-Key"]?.string)
        #expect(!first.jsonString.contains("client-key"))
        #expect(again["headers"]?["Idempotency-Key"] == .string(pseudonym))
        #expect(first["multiValueHeaders"]?["Idempotency-Key"] == [.string(pseudonym)])
        #expect(other["headers"]?["Idempotency-Key"] != .string(pseudonym))
        #expect(
            RecordingRedaction(secret: ServerSecret(String(repeating: "s", count: 32))!).event(
                Self.event(body: nil).setting(.string("client-key-1"), at: ["headers", "Idempotency-Key"])
            )["headers"]?["Idempotency-Key"] != .string(pseudonym), "another secret, another pseudonym")
        // The recorded call and its retry, replayed on one table: the retry is a repeat.
        let harness = Harness()
        let answered = try await harness.generateQuestions.handle(first, context: harness.clock.context)
        let repeated = try await harness.generateQuestions.handle(again, context: harness.clock.context)
        let another = try await harness.generateQuestions.handle(other, context: harness.clock.context)
        #expect(answered["statusCode"] == 200 && another["statusCode"] == 200)
        #expect(answered["headers"]?["Idempotent-Replayed"] == nil)
        #expect(repeated["headers"]?["Idempotent-Replayed"] == "true")
        #expect(another["headers"]?["Idempotent-Replayed"] == nil)
    }

    @Test(
        "An Idempotency-Key the function refuses keeps its form and replays to the same 400",
        arguments: ["", String(repeating: "k", count: 129), "line\nbreak secret", "tab\tsecret"])
    func refusedKeys(key: String) async throws {
        var event = Self.event(body: #"{"topic":"t"}"#)
        event.set(.string(key), at: ["headers", "Idempotency-Key"])
        let (original, replayed, lines) = try await replayBoth(event)
        #expect(original["statusCode"]?.int == 400)
        #expect(try outcome(original) == outcome(replayed))
        expectPrivate(lines, ["secret", String(repeating: "k", count: 20)])
    }

    @Test("An authorizer is recorded by its decision only: principal and user as pseudonyms, effect, no email")
    func decision() {
        let answer: JSONValue = [
            "principalId": "u1",
            "policyDocument": ["Version": "2012-10-17", "Statement": [["Effect": "Allow", "Resource": "arn"]]],
            "context": ["userId": "u1", "email": .string(Self.email), "tier": "premium", "quota": 50, "groups": "[]"],
        ]
        let decision = Self.redaction.decision(answer)
        #expect(decision["effect"] == "Allow")
        #expect(decision["principalId"] == .string(Self.redaction.user("u1")))
        #expect(decision["context"]?["userId"] == .string(Self.redaction.user("u1")))
        #expect(decision["context"]?["email"] == nil)
        #expect(decision["context"]?["quota"] == 50)
        #expect(!decision.jsonString.contains("u1"))
    }

    @Test("A recording past CloudWatch Logs' event size is split in numbered parts that read back whole")
    func split() throws {
        let topic = String(repeating: "ü", count: 400)
        let event = Self.redaction.event(Self.event(body: #"{"topic":""# + topic + #""}"#))
        let recording = Recording(function: "generateQuestions", requestID: "r-9", epochMilliseconds: 7, event: event)
        for json in [false, true] {
            let lines = RecordingLines.lines(for: recording, json: json, timestamp: "t", maximum: 700)
            #expect(lines.count > 2)
            #expect(lines.allSatisfy { $0.utf8.count <= 700 })
            var payload = ""
            for (index, line) in lines.enumerated() {
                guard case .part(let part) = RecordingLines.read(line) else {
                    Issue.record("line \(index + 1) does not read as a part")
                    return
                }
                #expect(part.part == index + 1 && part.parts == lines.count)
                payload += part.payload
            }
            #expect(Recording(json: try JSONParser.parse(payload)) == recording)
        }
        #expect(RecordingLines.maximumLineBytes == 262_118)
    }
}
