import DynamoDBTable
import EmulatorKit
import EmulatorServer
import Foundation
import HTTPText
import InkraJSON
import InkraTestSupport
import InkraTime
import InkraUsage
import SingleTable
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The metering promise from outside the process: the built `bootstrap`, driven through a local
/// Runtime API as Lambda drives it, keeps usage in moto's DynamoDB behind a fault proxy
/// (`DynamoDBFaultProxy`), beside a model endpoint that can hang, and is killed with SIGKILL
/// mid-request. After each scenario the table is read back from moto directly: the units charged
/// equal the user's calls answered 200.
@Suite(
    "bootstrap on DynamoDB under faults: a unit stays charged only for a call answered 200",
    .enabled(if: MotoEndpoint.isAvailable, Comment(rawValue: MotoEndpoint.skipReason)),
    // One at a time: moto answers one request at a time to the whole test run, and these measure
    // what a runtime does within its deadline.
    .serialized)
struct BootstrapFaultTests {
    @Test("A model that hangs past the deadline: 503, and the give-back is still sent to DynamoDB")
    func hangingModel() async throws {
        let stack = try await FaultStack()
        defer { stack.stop() }
        // A deadline of a few seconds, long enough for moto, which answers one request at a time
        // to the whole parallel test run.
        let runtime = try await stack.start("generateQuestions", ["INKRA_GATEWAY_TIMEOUT": "6"])
        let now = Timestamp.now
        let reply = try await runtime.invoke(FaultStack.questions(topic: "hang", key: "k1", at: now))
        #expect(reply.status == 503, "\(reply.raw)")
        #expect(reply.body["code"] == "unavailable", "\(reply.raw)")
        #expect(try await stack.counters("u1", at: now) == [0, 0, 0])
        #expect(try await stack.records("u1").isEmpty)
        await runtime.stop()
    }

    @Test("GetItem failing after the charge committed: 503 and the unit given back, not kept")
    func readAfterCharge() async throws {
        let stack = try await FaultStack { operation, _ in
            operation == "GetItem" ? DynamoDBFaultProxy.internalServerError : nil
        }
        defer { stack.stop() }
        let runtime = try await stack.start("generateQuestions")
        let now = Timestamp.now
        let reply = try await runtime.invoke(FaultStack.questions(topic: "a read fails", key: "k1", at: now))
        #expect(reply.status == 503, "\(reply.raw)")
        // The charge and its give-back (more when a slow moto made an attempt time out and retry).
        #expect(stack.proxy.count("TransactWriteItems") >= 2, "no give-back was sent")
        #expect(try await stack.counters("u1", at: now) == [0, 0, 0])
        #expect(try await stack.records("u1").isEmpty)
        await runtime.stop()
    }

    @Test("A keyless call's charge applied but its answers lost: sent again under its token, found, given back")
    func keylessLostCharge() async throws {
        // The first TransactWriteItems is applied and answered 500, as DynamoDB may answer a
        // write it made; every retry of the table client fails too, so the call's outcome is
        // unknown when its attempts run out. The TransactWriteItems reference
        // (`ClientRequestToken`): a repeat under the same token within ten minutes succeeds
        // without changing anything when the first applied; the proxy answers repeats so.
        let attempts = DynamoDBTable.Options().maximumAttempts
        let stack = try await FaultStack { operation, number in
            guard operation == "TransactWriteItems" else { return nil }
            if number == 1 { return .appliedThenError(status: 500, type: "InternalServerError") }
            return number <= attempts ? DynamoDBFaultProxy.internalServerError : nil
        }
        defer { stack.stop() }
        // A deadline long enough for every attempt, so the resend comes from the clean-up budget.
        let runtime = try await stack.start("generateQuestions", ["INKRA_GATEWAY_TIMEOUT": "20"])
        let now = Timestamp.now
        let reply = try await runtime.invoke(FaultStack.questions(topic: "no key", at: now))
        #expect(reply.status == 503, "\(reply.raw)")
        #expect(reply.body["code"] == "unavailable")
        // The attempts, the resend that learned the charge stood, and the give-back.
        #expect(stack.proxy.count("TransactWriteItems") >= attempts + 2, "\(reply.raw)")
        #expect(reply.raw.contains("giving the unit back"), "\(reply.raw)")
        // Units charged = calls answered 200.
        #expect(try await stack.counters("u1", at: now) == [0, 0, 0])
        await runtime.stop()
    }

    @Test("The refusal mark (UpdateItem) failing: still 429 with window and retryAfter, never 503")
    func refusalMarkFails() async throws {
        let stack = try await FaultStack { operation, _ in
            operation == "UpdateItem" ? DynamoDBFaultProxy.internalServerError : nil
        }
        defer { stack.stop() }
        let runtime = try await stack.start(
            "generateQuestions", ["INKRA_LIMITS": #"{"free":{"monthly":5,"daily":5,"hourly":1}}"#])
        let now = Timestamp.now
        #expect(try await runtime.invoke(FaultStack.questions(topic: "first", at: now)).status == 200)
        let refused = try await runtime.invoke(FaultStack.questions(topic: "second", at: now))
        #expect(refused.status == 429, "\(refused.raw)")
        #expect(refused.body["window"] == "hour")
        #expect(refused.body["retryAfter"]?.int ?? 0 > 2)
        #expect(try await stack.counters("u1", at: now) == [1, 1, 1])
        await runtime.stop()
    }

    @Test("SIGKILL between the charge and the answer: the retry with its key is answered on the same unit")
    func killedMidRequest() async throws {
        let stack = try await FaultStack()
        defer { stack.stop() }
        // Each call runs at its event's time (INKRA_CLOCK=request-time), so the retry can come a
        // minute later, past the first call's lease, without the test waiting a minute.
        let first = try await stack.start("generateQuestions", ["INKRA_CLOCK": "request-time"])
        let start = Timestamp.now
        let call = try FaultStack.questions(topic: "hang", key: "lost-answer", at: start)
        let pending = Task { try await first.invoke(call) }
        // The model is asked only after the unit is charged: kill the runtime then.
        for await _ in stack.model.arrivals { break }
        await first.kill()
        _ = try? await pending.value
        #expect(try await stack.counters("u1", at: start) == [1, 1, 1], "charged, never answered")

        let second = try await stack.start("generateQuestions", ["INKRA_CLOCK": "request-time"])
        // A retry within the first's lease is told to wait until it runs out: 409 with
        // Retry-After, the header and the body alike, and nothing charged.
        let early = try await second.invokeRaw(call)
        #expect(early["statusCode"] == 409, "\(early)")
        let wait = try #require(early["headers"]?["Retry-After"]?.string.flatMap { Int($0) }, "\(early)")
        #expect((1...40).contains(wait), "\(early)")
        #expect(try JSONParser.parse(early["body"]?.string ?? "")["retryAfter"] == .number(wait))
        #expect(try await stack.counters("u1", at: start) == [1, 1, 1])
        var retry = call
        retry.set(.number(Int((start.timeIntervalSince1970 + 60) * 1000)), at: ["requestContext", "requestTimeEpoch"])
        stack.modelAnswers()
        let answered = try await second.invoke(retry)
        #expect(answered.status == 200, "\(answered.raw)")
        #expect(answered.body["usage"]?["used"] == 1)
        // Units charged = intended calls answered 200.
        #expect(try await stack.counters("u1", at: start) == [1, 1, 1])
        let again = try await second.invoke(retry)
        #expect(again.status == 200 && again.body == answered.body)
        await second.stop()
    }

    @Test("An orphan no retry comes for is given back by repairCharges, run as its own function")
    func orphanRepaired() async throws {
        let stack = try await FaultStack()
        defer { stack.stop() }
        let first = try await stack.start("generateQuestions", ["INKRA_CLOCK": "request-time"])
        let start = Timestamp.now
        let pending = Task { try await first.invoke(FaultStack.questions(topic: "hang", key: "orphan", at: start)) }
        for await _ in stack.model.arrivals { break }
        await first.kill()
        _ = try? await pending.value
        #expect(try await stack.counters("u1", at: start) == [1, 1, 1])

        let repair = try await stack.start("repairCharges", ["INKRA_CLOCK": "request-time"])
        // The time where the emulator puts a scheduled event's recorded time: API Gateway's field.
        let later: JSONValue = [
            "requestContext": ["requestTimeEpoch": .number(Int((start.timeIntervalSince1970 + 120) * 1000))]
        ]
        let report = try await repair.invokeRaw(later)
        #expect(report["repaired"] == 1, "\(report)")
        #expect(try await stack.counters("u1", at: start) == [0, 0, 0])
        #expect(try await stack.records("u1").isEmpty)
        #expect(try await repair.invokeRaw(later)["repaired"] == 0)
        await repair.stop()
    }

    @Test("BatchGetItem leaving every key unprocessed: asked again with backoff, a bounded number of times")
    func unprocessedKeys() async throws {
        let stack = try await FaultStack { operation, _ in operation == "BatchGetItem" ? .unprocessedKeys : nil }
        defer { stack.stop() }
        let runtime = try await stack.start("checkUsage", ["INKRA_GATEWAY_TIMEOUT": "3"])
        var event = try FaultStack.event("checkUsage/01-rest-new-user.json")
        event.set(["principalId": "u1", "userId": "u1", "tier": "free"], at: ["requestContext", "authorizer"])
        event.set(.number(Int(Timestamp.now.timeIntervalSince1970 * 1000)), at: ["requestContext", "requestTimeEpoch"])
        let reply = try await runtime.invoke(event)
        #expect(reply.status == 503, "\(reply.raw)")
        // Two seconds of work: a tight loop sends hundreds; full-jitter backoff from 20 ms, a handful.
        #expect(stack.proxy.count("BatchGetItem") <= 20, "\(stack.proxy.count("BatchGetItem")) BatchGetItem calls")
        await runtime.stop()
    }

    @Test("The deadline counts from when API Gateway received the request, not from the invocation")
    func deadlineFromGateway() async throws {
        let stack = try await FaultStack()
        defer { stack.stop() }
        stack.modelDelay(.seconds(25))
        let runtime = try await stack.start("generateQuestions")
        // API Gateway received it 20 s ago (a long cold start, say): 9 s of its 29 are left, less
        // the margin, where counting from the invocation would leave 28 and answer 200.
        let received = Timestamp.now.addingTimeInterval(-20)
        let reply = try await runtime.invoke(FaultStack.questions(topic: "slow", key: "late", at: received))
        #expect(reply.status == 503, "\(reply.raw)")
        #expect(try await stack.counters("u1", at: received) == [0, 0, 0], "\(reply.raw)")
        await runtime.stop()
    }
}

/// moto behind a fault proxy, a model endpoint, and built `bootstrap` processes on its table.
final class FaultStack: Sendable {
    let table = "inkra-faults-\(UUID().uuidString.prefix(8).lowercased())"
    let proxy: DynamoDBFaultProxy
    let model: StubHTTPServer
    private let behaviour = ModelBehaviour()
    /// Holds every request that hangs until the stack stops: the model never answers it in time,
    /// and nothing is left waiting (or sleeping) once the test is over.
    private let hung = Gate()

    /// What the model endpoint does with a topic that says "hang".
    final class ModelBehaviour: @unchecked Sendable {
        private let lock = NSLock()
        private var hangs = true
        private var delay: Duration = .zero
        var hanging: Bool { lock.withLock { hangs } }
        var answerDelay: Duration { lock.withLock { delay } }
        func answer() { lock.withLock { hangs = false } }
        func delay(_ duration: Duration) { lock.withLock { delay = duration } }
    }

    init(fault: @escaping @Sendable (String, Int) -> DynamoDBFaultProxy.Fault? = { _, _ in nil }) async throws {
        let moto = try await MotoEndpoint.url()
        try await MotoEndpoint.client().createTable(.singleTable(named: table))
        proxy = try await DynamoDBFaultProxy(upstream: moto, fault: fault)
        let behaviour = self.behaviour
        let hung = self.hung
        model = try await StubHTTPServer { request in
            if String(decoding: request.body, as: UTF8.self).contains("hang"), behaviour.hanging {
                await hung.wait()
            }
            try? await Task.sleep(for: behaviour.answerDelay)
            let content = (1...3).map { "Question number \($0) about it?" }.joined(separator: "\n")
            let reply: JSONValue = ["choices": [["message": ["content": .string(content)]]]]
            return .json(200, reply.jsonString)
        }
    }

    /// From now on the model answers topics that say "hang" too.
    func modelAnswers() { behaviour.answer() }

    /// The model takes this long to answer.
    func modelDelay(_ duration: Duration) { behaviour.delay(duration) }

    /// A `bootstrap` serving `function` on the table through the proxy.
    func start(_ function: String, _ settings: [String: String] = [:]) async throws -> Runtime {
        let server = try await RuntimeAPIServer(functionName: function, clock: { Timestamp.now })
        let stack = [
            "INKRA_STORE": "dynamodb", "INKRA_TABLE_NAME": table,
            "AWS_ENDPOINT_URL_DYNAMODB": proxy.url.absoluteString, "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
            "INKRA_LLM_BASE_URL": "http://127.0.0.1:\(model.port)/v1", "INKRA_LLM_MODEL": "test-model",
        ]
        let environment = BuiltBootstrap.environment(
            function, runtimeAPI: server.address, stack.merging(settings) { _, setting in setting })
        let child = try RunningChild(
            ChildProcess.built("bootstrap"), [], includingStandardError: true, environment: environment)
        return Runtime(server: server, child: child)
    }

    /// One runtime process and its Runtime API.
    struct Runtime: Sendable {
        let server: RuntimeAPIServer
        let child: RunningChild

        /// A proxy response: status and parsed body.
        struct Reply {
            var status: Int
            var body: JSONValue
            var raw: String
        }

        func invoke(_ event: JSONValue, traceHeader: String? = nil) async throws -> Reply {
            let answer = try await invokeRaw(event, traceHeader: traceHeader)
            return Reply(
                status: answer["statusCode"]?.int ?? 0,
                body: (try? JSONParser.parse(answer["body"]?.string ?? "null")) ?? .null,
                raw: answer.jsonString + "\n" + child.lines.joined(separator: "\n"))
        }

        func invokeRaw(_ event: JSONValue, traceHeader: String? = nil) async throws -> JSONValue {
            let outcome =
                if let traceHeader {
                    await server.invoke(event.jsonBytes, timeout: 30, traceHeader: traceHeader)
                } else {
                    await server.invoke(event.jsonBytes, timeout: 30)
                }
            switch outcome {
            case .response(let bytes): return try JSONParser.parse(bytes)
            case let other: return ["outcome": .string("\(other)")]
            }
        }

        /// SIGKILL, and the Runtime API told so.
        func kill() async {
            _ = await child.stop(with: SIGKILL)
            await server.runtimeEnded("killed")
        }

        func stop() async {
            await server.shutdown()
            _ = await child.stop()
        }
    }

    func stop() {
        hung.open()
        proxy.shutdown()
        model.shutdown()
    }

    /// The month, day and hour counters of `user` now, read from moto directly.
    func counters(_ user: String, at instant: Timestamp = Timestamp.now) async throws -> [Int] {
        let client = try await MotoEndpoint.client()
        let windows = UsageWindows(at: instant)
        var counts: [Int] = []
        for (sort, counter) in [
            ("USAGE#\(windows.month)", "interviewCount"), ("RATELIMIT#\(windows.day)", "requestCount"),
            ("RATELIMIT#\(windows.hour)", "requestCount"),
        ] {
            let item = try await client.getItem(
                GetItemRequest(
                    tableName: table, key: ["PK": .s(userPartition(user)), "SK": .s(sort)], consistentRead: true)
            ).item
            counts.append(item?[counter]?.intValue ?? 0)
        }
        return counts
    }

    /// The idempotency records of `user`, read from moto directly.
    func records(_ user: String) async throws -> [Item] {
        try await MotoEndpoint.client().query(
            QueryRequest(
                tableName: table, keyConditionExpression: "PK = :user AND begins_with(SK, :prefix)",
                expressionAttributes: ExpressionAttributes(values: [
                    ":user": .s(userPartition(user)), ":prefix": .s("IDEMPOTENCY#"),
                ]), consistentRead: true)
        ).items
    }

    /// A sample event of events/.
    static func event(_ path: String) throws -> JSONValue {
        try JSONParser.parse(
            Array(try Data(contentsOf: ChildProcess.repositoryRoot.appendingPathComponent("events/\(path)"))))
    }

    /// `generateQuestions` for user u1 (free), as API Gateway passes it on from the authorizer's Allow.
    static func questions(topic: String, key: String? = nil, at instant: Timestamp = Timestamp.now) throws -> JSONValue
    {
        var event = try event("generateQuestions/01-rest-free-user.json")
        event.set(["principalId": "u1", "userId": "u1", "tier": "free"], at: ["requestContext", "authorizer"])
        event.set(.string(#"{"topic":"\#(topic)","count":3}"#), at: ["body"])
        event.set(.number(Int(instant.timeIntervalSince1970 * 1000)), at: ["requestContext", "requestTimeEpoch"])
        if let key { event.set(.string(key), at: ["headers", "Idempotency-Key"]) }
        return event
    }
}
