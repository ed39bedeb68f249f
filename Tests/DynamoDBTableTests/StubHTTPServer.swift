import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A tiny HTTP server on 127.0.0.1 for tests: each request is answered by a closure.
final class StubHTTPServer: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        var uri: String
        var headers: [(String, String)]
        var body: [UInt8]
    }

    typealias Responder = @Sendable (Request) async -> (status: Int, body: String)

    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private var channel: (any Channel)?
    private let lock = NSLock()
    private var received: [Request] = []

    var port: Int { channel?.localAddress?.port ?? 0 }
    var requests: [Request] { lock.withLock { received } }

    init(_ responder: @escaping Responder) throws {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(Handler(server: self, responder: responder))
                }
            }
        channel = try bootstrap.bind(host: "127.0.0.1", port: 0).wait()
    }

    func record(_ request: Request) { lock.withLock { received.append(request) } }

    func shutdown() {
        try? channel?.close().wait()
        try? group.syncShutdownGracefully()
    }

    final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let server: StubHTTPServer
        let responder: Responder
        var head: HTTPRequestHead?
        var body: [UInt8] = []

        init(server: StubHTTPServer, responder: @escaping Responder) {
            self.server = server
            self.responder = responder
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = []
            case .body(var buffer):
                body += buffer.readBytes(length: buffer.readableBytes) ?? []
            case .end:
                guard let head else { return }
                let request = Request(
                    method: head.method.rawValue,
                    uri: head.uri,
                    headers: head.headers.map { ($0.name, $0.value) },
                    body: body
                )
                server.record(request)
                let responder = self.responder
                let loop = context.eventLoop
                let bound = NIOLoopBound(context, eventLoop: loop)
                let promise = loop.makePromise(of: (status: Int, body: String).self)
                promise.completeWithTask { await responder(request) }
                promise.futureResult.whenSuccess { answer in
                    let context = bound.value
                    var headers = HTTPHeaders()
                    headers.add(name: "Content-Type", value: "application/json")
                    headers.add(name: "Content-Length", value: String(answer.body.utf8.count))
                    let head = HTTPResponseHead(
                        version: .http1_1, status: HTTPResponseStatus(statusCode: answer.status), headers: headers)
                    context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
                    context.write(
                        NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: answer.body)))), promise: nil)
                    context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
                }
            }
        }
    }
}
