import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A tiny HTTP server on 127.0.0.1 for tests: each request is answered by a closure; over TLS
/// when given a context.
package final class StubHTTPServer: @unchecked Sendable {
    package struct Request: Sendable {
        package var method: String
        package var uri: String
        package var headers: [(String, String)]
        package var body: [UInt8]
    }

    /// What the server answers; `Content-Length` is added.
    package struct Answer: Sendable {
        package var status: Int
        package var headers: [(String, String)]
        package var body: String
        /// Whether the connection is closed instead of answering: an answer lost on the way back.
        package var dropsConnection = false

        package init(status: Int, headers: [(String, String)], body: String) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// No answer: the connection is closed, as a network that loses the answer leaves it.
        package static let dropped: Answer = {
            var answer = Answer(status: 0, headers: [], body: "")
            answer.dropsConnection = true
            return answer
        }()

        /// A JSON answer.
        package static func json(_ status: Int, _ body: String) -> Answer {
            Answer(status: status, headers: [("Content-Type", "application/json")], body: body)
        }
    }

    package typealias Responder = @Sendable (Request) async -> Answer

    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    /// Where responders run: the thread of `group`.
    let executor: LoopTaskExecutor
    private let replies = ReplyGate()
    private var channel: (any Channel)?
    private let lock = NSLock()
    private var received: [Request] = []
    private var accepted = 0

    /// Each request's URI as it arrives, for a test that waits for a request to reach the server.
    package let arrivals: AsyncStream<String>
    private let arrived: AsyncStream<String>.Continuation

    package var port: Int { channel?.localAddress?.port ?? 0 }
    package var requests: [Request] { lock.withLock { received } }
    /// How many connections clients have opened.
    package var connectionCount: Int { lock.withLock { accepted } }

    /// Starts listening on a free loopback port.
    package init(tls: NIOSSLContext? = nil, _ responder: @escaping Responder) async throws {
        (arrivals, arrived) = AsyncStream.makeStream(of: String.self)
        executor = LoopTaskExecutor(group.next())
        let replies = self.replies
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                self.lock.withLock { self.accepted += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(
                        Handler(server: self, replies: replies, responder: responder))
                }
            }
        channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
    }

    func record(_ request: Request) {
        lock.withLock { received.append(request) }
        arrived.yield(request.uri)
    }

    /// Stops the server without waiting (for a `defer`): the listener closes soon after. An
    /// answer a responder gives later (a slow one the client gave up on) is dropped, not scheduled
    /// on the event loop that is gone. Nothing here blocks a thread: a caller on Swift's cooperative
    /// threads, which every suite of the test process shares, must not.
    package func shutdown() {
        replies.close()
        let group = self.group
        guard let channel else { return group.shutdownGracefully { _ in } }
        channel.close().whenComplete { _ in group.shutdownGracefully { _ in } }
    }

    final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let server: StubHTTPServer
        let replies: ReplyGate
        let responder: Responder
        var requests = RequestCollector()

        init(server: StubHTTPServer, replies: ReplyGate, responder: @escaping Responder) {
            self.server = server
            self.replies = replies
            self.responder = responder
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard let (head, body) = requests.collect(unwrapInboundIn(data)) else { return }
            let request = Request(
                method: head.method.rawValue,
                uri: head.uri,
                headers: head.headers.map { ($0.name, $0.value) },
                body: body
            )
            server.record(request)
            let (responder, replies) = (self.responder, self.replies)
            let loop = context.eventLoop
            let bound = NIOLoopBound(context, eventLoop: loop)
            // The responder runs on this server's own thread, not on Swift's cooperative threads:
            // those are shared by every suite of the test process, and a loaded run queues a job
            // there for seconds, longer than a client's timeout (a runtime's start-up budget).
            Task(executorPreference: server.executor) {
                let answer = await responder(request)
                if answer.dropsConnection { return replies.drop(bound, on: loop) }
                replies.respond(answer.status, answer.headers, Array(answer.body.utf8), to: bound, on: loop)
            }
        }
    }
}

/// Runs the jobs of the tasks that prefer it on one event loop's thread (SE-0417's task executor
/// preference): their nonisolated code and what it awaits stay off Swift's cooperative threads.
final class LoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
