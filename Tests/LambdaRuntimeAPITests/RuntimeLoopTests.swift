import EmulatorKit
import EmulatorServer
import Foundation
import InkraJSON
import InkraTestSupport
import InkraTime
import LambdaRuntimeAPI
import Testing

/// Records what the handler saw.
final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var contexts: [InvocationContext] = []
    private var traces: [String?] = []
    private var remaining: [TimeInterval] = []

    func add(_ context: InvocationContext) {
        lock.withLock {
            contexts.append(context)
            traces.append(ProcessInfo.processInfo.environment["_X_AMZN_TRACE_ID"])
            remaining.append(context.remainingTime(now: Timestamp.now))
        }
    }

    /// Each context, what the environment held as `_X_AMZN_TRACE_ID` and the remaining time, as the
    /// handler saw them.
    var all: [(InvocationContext, String?, TimeInterval)] {
        lock.withLock { (0..<contexts.count).map { (contexts[$0], traces[$0], remaining[$0]) } }
    }
}

// One loop per process, as in a Lambda sandbox: loops in this suite do not run side by side.
@Suite("The Runtime API client loop, against the local Runtime API", .serialized)
struct RuntimeLoopTests {
    /// The function timeout of these invocations: for hangs only (``Patience``), because a
    /// parallel test run on two cores can keep the loop waiting for minutes.
    static let timeout: TimeInterval = Patience.seconds

    func start(limit: Int, _ handler: @escaping RuntimeLoop.Handler) async throws -> (
        RuntimeAPIServer, Task<Void, any Error>
    ) {
        let server = try await RuntimeAPIServer(functionName: "echo", clock: { Timestamp.now })
        let loop = RuntimeLoop(client: try RuntimeClient(address: server.address, now: { Timestamp.now }))
        let task = Task { try await loop.run(limit: limit, handler: handler) }
        return (server, task)
    }

    @Test("Responses, one after another on one connection, with request id, deadline, ARN and trace id")
    func responses() async throws {
        let seen = Seen()
        let (server, task) = try await start(limit: 3) { context, event in
            seen.add(context)
            return event
        }
        var windows: [ClosedRange<Timestamp>] = []
        for index in 0..<3 {
            let sent = Timestamp.now
            let outcome = await server.invoke(Array("{\"n\":\(index)}".utf8), timeout: Self.timeout)
            windows.append(sent.addingTimeInterval(Self.timeout)...Timestamp.now.addingTimeInterval(Self.timeout))
            #expect(outcome == .response(Array("{\"n\":\(index)}".utf8)))
        }
        try await task.value
        await server.shutdown()
        let all = seen.all
        #expect(all.count == 3)
        #expect(Set(all.map(\.0.requestID)).count == 3)
        for ((context, trace, remaining), window) in zip(all, windows) {
            #expect(context.invokedFunctionARN == "arn:aws:lambda:us-east-1:123456789012:function:echo")
            // The deadline is the invocation's start plus its timeout (to the millisecond), and the
            // handler sees it as time remaining.
            let slack = window.lowerBound.addingTimeInterval(-0.002)...window.upperBound.addingTimeInterval(0.002)
            #expect(slack.contains(context.deadline))
            #expect(remaining > 0 && remaining <= Self.timeout)
            #expect(context.traceID?.hasPrefix("Root=1-") == true)
            // The header reaches the handler on its context, and never the process's environment,
            // where glibc would keep every replaced value (issue #50).
            #expect(trace == nil)
        }
    }

    @Test("A handler that throws is reported as an invocation error, and the loop goes on")
    func handlerError() async throws {
        struct Broken: Error {}
        let (server, task) = try await start(limit: 2) { _, event in
            if event == Array("boom".utf8) {
                throw InvocationFailure(errorType: "Handler.Boom", errorMessage: "it broke \"badly\"")
            }
            if event == Array("crash".utf8) { throw Broken() }
            return event
        }
        guard case .error(let type, let body) = await server.invoke(Array("boom".utf8), timeout: Self.timeout) else {
            Issue.record("expected an error")
            return
        }
        #expect(type == "Handler.Boom")
        #expect(try JSONParser.parse(body) == ["errorMessage": "it broke \"badly\"", "errorType": "Handler.Boom"])
        guard case .error(let crashType, _) = await server.invoke(Array("crash".utf8), timeout: Self.timeout) else {
            Issue.record("expected an error")
            return
        }
        #expect(crashType == "Broken")
        try await task.value
        await server.shutdown()
    }

    @Test("An init error reaches /runtime/init/error")
    func initError() async throws {
        let server = try await RuntimeAPIServer(clock: { Timestamp.now })
        let loop = RuntimeLoop(client: try RuntimeClient(address: server.address, now: { Timestamp.now }))
        await loop.reportInitializationFailure(
            InvocationFailure(errorType: "Runtime.InitError", errorMessage: "COGNITO_USER_POOL_ID is required"))
        guard case .initializationFailed(let type, let body)? = await server.queue.initializationFailure else {
            Issue.record("no init error was posted")
            return
        }
        #expect(type == "Runtime.InitError")
        #expect(try JSONParser.parse(body)["errorMessage"] == "COGNITO_USER_POOL_ID is required")
        #expect(
            await server.invoke(Array("{}".utf8), timeout: Self.timeout)
                == .initializationFailed(type: type, body: body))
        await server.shutdown()
    }

    @Test("A connection dropped mid-loop is retried, and the next invocation is served")
    func droppedConnection() async throws {
        let server = try await RuntimeAPIServer(clock: { Timestamp.now })
        await server.queue.dropNext()
        let loop = RuntimeLoop(client: try RuntimeClient(address: server.address, now: { Timestamp.now }))
        let task = Task { try await loop.run(limit: 1) { _, event in event } }
        #expect(await server.invoke(Array("after".utf8), timeout: Self.timeout) == .response(Array("after".utf8)))
        try await task.value
        #expect(await server.queue.dropped == 1)
        #expect(await server.queue.nextCalls == 1)
        await server.shutdown()
    }

    /// Runs a blocking Runtime API call on a thread of its own, off Swift's cooperative threads
    /// (which, on Linux, are Dispatch's global queue's: a long poll there would hold one of them).
    static func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }

    @Test("A runtime between its answer and its next poll is still attached; the next invocation waits for it")
    func attachedBetweenPolls() async throws {
        let server = try await RuntimeAPIServer(clock: { Timestamp.now })
        #expect(await server.isAttached == false)
        let client = try RuntimeClient(address: server.address, now: { Timestamp.now })
        let first = Task { await server.invoke(Array("one".utf8), timeout: Self.timeout) }
        let (context, event) = try await Self.blocking { try client.next() }
        try await Self.blocking { try client.respond(to: context.requestID, with: event) }
        #expect(await first.value == .response(Array("one".utf8)))
        // Answered and not polling yet, as a runtime is while it finishes an invocation.
        #expect(await server.isAttached)
        let second = Task { await server.invoke(Array("two".utf8), timeout: Self.timeout) }
        let (secondContext, secondEvent) = try await Self.blocking { try client.next() }
        try await Self.blocking { try client.respond(to: secondContext.requestID, with: secondEvent) }
        #expect(await second.value == .response(Array("two".utf8)))
        await server.runtimeEnded("exited with status 0")
        #expect(await server.isAttached == false)
        await server.shutdown()
    }

    @Test(
        "Without a usable Lambda-Runtime-Deadline-Ms the invocation gets Lambda's default 3 s from the client's clock",
        arguments: [nil, "soon"] as [String?])
    func missingDeadline(header: String?) async throws {
        let server = try await StubHTTPServer { _ in
            StubHTTPServer.Answer(
                status: 200,
                headers: [("Lambda-Runtime-Aws-Request-Id", "req-1")]
                    + (header.map { [("Lambda-Runtime-Deadline-Ms", $0)] } ?? []),
                body: "{}")
        }
        defer { server.shutdown() }
        let arrival = Timestamp(timeIntervalSince1970: 1_800_000_000)
        let client = try RuntimeClient(address: "127.0.0.1:\(server.port)", now: { arrival })
        let (context, event) = try await Self.blocking { try client.next() }
        #expect(server.requests.map { "\($0.method) \($0.uri)" } == ["GET /2018-06-01/runtime/invocation/next"])
        #expect(context.requestID == "req-1")
        #expect(event == Array("{}".utf8))
        #expect(context.deadline == arrival.addingTimeInterval(3))
        #expect(context.remainingTime(now: arrival.addingTimeInterval(1)) == 2)
    }

    @Test("An unreachable Runtime API ends the loop with an error after the retries")
    func unreachable() async throws {
        let loop = RuntimeLoop(
            client: try RuntimeClient(address: "127.0.0.1:1", now: { Timestamp.now }), maximumAttempts: 2)
        await #expect(throws: RuntimeAPIError.self) { try await loop.run(limit: 1) { _, event in event } }
        #expect(throws: RuntimeAPIError.self) { try RuntimeClient(address: "no-port", now: { Timestamp.now }) }
    }

    static let head = "HTTP/1.1 200 OK\r\nLambda-Runtime-Aws-Request-Id: r1\r\n"

    static let malformedFraming: [(String, String)] = [
        (head + "Content-Length: -5\r\n\r\n", "malformed Content-Length \"-5\""),
        (head + "Content-Length: +5\r\n\r\nhello", "malformed Content-Length \"+5\""),
        (head + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", "malformed Content-Length \"5, 6\""),
        (head + "Transfer-Encoding: chunked\r\n\r\n-1\r\n", "malformed chunk size \"-1\""),
        (head + "Transfer-Encoding: chunked\r\n\r\n\r\n", "malformed chunk size \"\""),
        (head + "Transfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n", "malformed chunk size \"0x5\""),
        (head + "Transfer-Encoding: chunked, gzip\r\n\r\n", "unsupported Transfer-Encoding \"chunked, gzip\""),
        (
            head + "Transfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n",
            "malformed chunk: 3 bytes followed by \"lo\" instead of a line end"
        ),
    ]

    @Test("A badly framed answer to /next is a protocol error naming what is wrong", arguments: malformedFraming)
    func badFraming(answer: String, message: String) async throws {
        let server = try await RawAnswerServer(answer: answer, closeAfterAnswer: true)
        defer { server.shutdown() }
        let client = try RuntimeClient(address: "127.0.0.1:\(server.port)", now: { Timestamp.now })
        await #expect(throws: RuntimeAPIError(.protocolError, message)) {
            try await Self.blocking { try client.next() }
        }
    }

    @Test("A chunked answer is read whole, whatever the case of its coding and its hex digits")
    func chunkedAnswer() async throws {
        let answer = Self.head + "Transfer-Encoding: Chunked\r\n\r\nA\r\n0123456789\r\n2; note=x\r\n!!\r\n0\r\n\r\n"
        let server = try await RawAnswerServer(answer: answer, closeAfterAnswer: false)
        defer { server.shutdown() }
        let client = try RuntimeClient(address: "127.0.0.1:\(server.port)", now: { Timestamp.now })
        for _ in 0..<2 {
            let (context, body) = try await Self.blocking { try client.next() }
            #expect(context.requestID == "r1")
            #expect(String(decoding: body, as: UTF8.self) == "0123456789!!")
        }
        #expect(server.connectionCount == 1)
    }
}
