import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A local Lambda Runtime API (`/2018-06-01/runtime/…`) on loopback, so a real custom runtime
/// such as `bootstrap` can be run and fed events as Lambda would: long-polled `next`, `response`,
/// `error` and `init/error`, with `Lambda-Runtime-Aws-Request-Id`, `Lambda-Runtime-Deadline-Ms`,
/// `Lambda-Runtime-Invoked-Function-Arn` and `Lambda-Runtime-Trace-Id`.
public final class RuntimeAPIServer: Sendable {
    let queue: RuntimeQueue
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let replies = ReplyGate()
    /// The function's ARN, as Lambda sends it.
    public let functionARN: String

    /// The address to give the runtime as `AWS_LAMBDA_RUNTIME_API`.
    public var address: String { "127.0.0.1:\(port)" }
    /// The bound port.
    public var port: Int { channel.localAddress?.port ?? 0 }

    /// Starts the server.
    /// - Parameters:
    ///   - host: the address to bind (loopback by default).
    ///   - port: the port; 0 picks a free one.
    ///   - functionName: the function's name, for its ARN.
    ///   - clock: the clock invocation deadlines are set by.
    /// - Throws: ``EmulatorError`` when the port cannot be bound.
    public init(
        host: String = "127.0.0.1", port: Int = 0, functionName: String = "function",
        clock: @escaping @Sendable () -> Date
    ) async throws {
        queue = RuntimeQueue(now: clock)
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        functionARN = "arn:aws:lambda:us-east-1:123456789012:function:\(functionName)"
        let queue = self.queue
        let replies = self.replies
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 32)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.pipeline.configureHTTPServerPipeline().flatMap {
                        channel.pipeline.addHandler(RuntimeAPIHandler(queue: queue, replies: replies))
                    }
                }
                .bind(host: host, port: port)
                .get()
        } catch {
            try? await group.shutdownGracefully()
            throw EmulatorError("cannot listen for the Runtime API on \(host):\(port): \(error)")
        }
    }

    /// Hands an event to the runtime and waits for its outcome.
    public func invoke(_ event: [UInt8], timeout: TimeInterval = 3) async -> RuntimeOutcome {
        await queue.invoke(event, timeout: timeout, functionARN: functionARN)
    }

    /// Tells waiting invocations that the runtime process ended.
    public func runtimeEnded(_ reason: String) async {
        await queue.runtimeEnded(reason)
    }

    /// The start-up failure, if the runtime reported one.
    public var initializationFailure: RuntimeOutcome? {
        get async { await queue.initializationFailure }
    }

    /// Whether a runtime is attached: polling for its next invocation, or working on one.
    public var isAttached: Bool {
        get async {
            guard queue.hasBeenPolled.withLock({ $0 }) else { return false }
            return await queue.isAttached
        }
    }

    /// How many times the runtime asked for the next invocation.
    public var nextCalls: Int {
        get async { await queue.nextCalls }
    }

    /// How many connections were dropped on purpose.
    public var droppedConnections: Int {
        get async { await queue.dropped }
    }

    /// Drops the connection of the next `next` request instead of answering it (tests).
    public func dropNextConnection() async {
        await queue.dropNext()
    }

    /// Stops listening and closes the runtime's connections. An answer still on its way (a `next`
    /// resolved, a response acknowledged) after this is dropped rather than scheduled on the
    /// event loop that is shutting down.
    public func shutdown() async {
        replies.close()
        try? await channel.close()
        try? await group.shutdownGracefully()
    }
}

/// A server's event loop, open to replies until the server shuts down. Replies are scheduled
/// under the gate's lock, so none can reach the loop after ``close()`` has returned (SwiftNIO
/// refuses work on a loop that has shut down). The local servers and the tests' stub use it.
package final class ReplyGate: Sendable {
    private let open = Mutex(true)

    package init() {}

    /// Runs `work` on `loop`, unless the server has shut down.
    package func schedule(on loop: any EventLoop, _ work: @escaping @Sendable () -> Void) {
        open.withLock { open in
            if open { loop.execute(work) }
        }
    }

    /// Writes one HTTP/1.1 response (with its `Content-Length`) on the handler's connection,
    /// unless the server has shut down.
    package func respond(
        _ status: Int, _ headers: [(String, String)], _ body: [UInt8],
        to context: NIOLoopBound<ChannelHandlerContext>, on loop: any EventLoop
    ) {
        schedule(on: loop) {
            var fields = HTTPHeaders(headers)
            fields.replaceOrAdd(name: "Content-Length", value: String(body.count))
            let head = HTTPResponseHead(
                version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: fields)
            let context = context.value
            context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
            context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
        }
    }

    /// Refuses every later reply.
    package func close() {
        open.withLock { $0 = false }
    }
}

/// Gathers one HTTP/1.1 request from its parts: the head, then the body's pieces, then the end.
/// The local servers and the tests' stub use it.
package struct RequestCollector {
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    package init() {}

    /// Takes one part; at the request's end, the whole request.
    package mutating func collect(_ part: HTTPServerRequestPart) -> (head: HTTPRequestHead, body: [UInt8])? {
        switch part {
        case .head(let head):
            self.head = head
            body = []
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let head else { return nil }
            self.head = nil
            return (head, body)
        }
        return nil
    }
}

/// Routes one connection's requests.
final class RuntimeAPIHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let queue: RuntimeQueue
    private let replies: ReplyGate
    private var requests = RequestCollector()
    private static let prefix = "/2018-06-01/runtime"

    init(queue: RuntimeQueue, replies: ReplyGate) {
        self.queue = queue
        self.replies = replies
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let (head, body) = requests.collect(unwrapInboundIn(data)) else { return }
        route(head, body, context)
    }

    private func route(_ head: HTTPRequestHead, _ body: [UInt8], _ context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?").first.map(String.init) ?? head.uri
        let loop = context.eventLoop
        let bound = NIOLoopBound(context, eventLoop: loop)
        let queue = self.queue
        let replies = self.replies
        let reply: @Sendable (Int, [(String, String)], [UInt8]) -> Void = { status, headers, body in
            replies.respond(status, headers, body, to: bound, on: loop)
        }
        if head.method == .GET && path == "\(Self.prefix)/invocation/next" {
            Task {
                if await queue.takeDrop() {
                    replies.schedule(on: loop) { bound.value.close(promise: nil) }
                    return
                }
                let next = await queue.next()
                reply(
                    200,
                    [
                        ("Lambda-Runtime-Aws-Request-Id", next.requestID),
                        ("Lambda-Runtime-Deadline-Ms", String(Int64(next.deadline.timeIntervalSince1970 * 1000))),
                        ("Lambda-Runtime-Invoked-Function-Arn", next.functionARN),
                        ("Lambda-Runtime-Trace-Id", next.traceID),
                        ("Content-Type", "application/json"),
                    ],
                    next.event
                )
            }
            return
        }
        let parts = path.split(separator: "/").map(String.init)
        // ["2018-06-01", "runtime", "invocation", id, "response" | "error"] or [..., "init", "error"]
        if head.method == .POST, parts.count == 5, parts[2] == "invocation", ["response", "error"].contains(parts[4]) {
            let requestID = parts[3]
            let errorType = head.headers.first(name: "Lambda-Runtime-Function-Error-Type") ?? "Unhandled"
            let outcome: RuntimeOutcome = parts[4] == "response" ? .response(body) : .error(type: errorType, body: body)
            Task {
                if await queue.complete(requestID, with: outcome) {
                    reply(202, [("Content-Type", "application/json")], Array(#"{"status":"OK"}"#.utf8))
                } else {
                    reply(
                        400,
                        [("Content-Type", "application/json")],
                        Array(#"{"errorMessage":"Invalid request ID","errorType":"InvalidRequestID"}"#.utf8)
                    )
                }
            }
            return
        }
        if head.method == .POST && path == "\(Self.prefix)/init/error" {
            let errorType = head.headers.first(name: "Lambda-Runtime-Function-Error-Type") ?? "Runtime.InitError"
            Task {
                await queue.failInitialization(.initializationFailed(type: errorType, body: body))
                reply(202, [("Content-Type", "application/json")], Array(#"{"status":"OK"}"#.utf8))
            }
            return
        }
        reply(
            404, [("Content-Type", "application/json")],
            Array(#"{"errorMessage":"Not found","errorType":"NotFound"}"#.utf8))
    }
}
