import HTTPText
import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A `GET` to an `http` URL whose body is read as it arrives, for a test of a stream that does not
/// end (the console's server-sent events): `OutboundHTTPClient` reads whole answers only. One
/// connection, closed when the body ends or `close()` is called.
package final class StreamingGet: Sendable {
    /// The answer's status code.
    package let status: Int
    /// The answer's headers.
    package let headers: HTTPHeaders
    /// The body's bytes, piece by piece as they come; it finishes when the server ends the body.
    package let body: AsyncThrowingStream<[UInt8], any Error>
    private let channel: any Channel

    private init(status: Int, headers: HTTPHeaders, body: AsyncThrowingStream<[UInt8], any Error>, channel: any Channel)
    {
        self.status = status
        self.headers = headers
        self.body = body
        self.channel = channel
    }

    deinit { channel.close(promise: nil) }

    /// Sends the request and waits for the answer's head.
    /// - Parameters:
    ///   - url: an `http` URL.
    ///   - headers: sent after `Host`.
    package static func open(_ url: HTTPURL, headers: [(String, String)] = []) async throws -> StreamingGet {
        guard url.scheme == "http" else { throw StreamingGetError("not an http URL: \(url)") }
        let host = url.host
        let port = url.port ?? 80
        let (head, headContinuation) = AsyncThrowingStream.makeStream(of: HTTPResponseHead.self)
        let (body, bodyContinuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(
                        Reader(head: headContinuation, body: bodyContinuation))
                }
            }
            .connect(host: host, port: port).get()
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?\(query)" }
        var fields = HTTPHeaders([("Host", "\(host):\(port)")])
        fields.add(contentsOf: headers)
        let request = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: fields)
        channel.write(HTTPClientRequestPart.head(request), promise: nil)
        try await channel.writeAndFlush(HTTPClientRequestPart.end(nil)).get()
        var heads = head.makeAsyncIterator()
        guard let answer = try await heads.next() else {
            channel.close(promise: nil)
            throw StreamingGetError("\(url) closed the connection before answering")
        }
        return StreamingGet(status: Int(answer.status.code), headers: answer.headers, body: body, channel: channel)
    }

    /// Closes the connection; the body finishes.
    package func close() { channel.close(promise: nil) }

    private final class Reader: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart

        let head: AsyncThrowingStream<HTTPResponseHead, any Error>.Continuation
        let body: AsyncThrowingStream<[UInt8], any Error>.Continuation

        init(
            head: AsyncThrowingStream<HTTPResponseHead, any Error>.Continuation,
            body: AsyncThrowingStream<[UInt8], any Error>.Continuation
        ) {
            self.head = head
            self.body = body
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let answer):
                head.yield(answer)
                head.finish()
            case .body(let buffer):
                body.yield(Array(buffer.readableBytesView))
            case .end:
                body.finish()
                context.close(promise: nil)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            head.finish()
            body.finish()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            head.finish(throwing: error)
            body.finish(throwing: error)
            context.close(promise: nil)
        }
    }
}
