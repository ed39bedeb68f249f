import NIOCore
import NIOHTTP1
import Synchronization

/// The stub server's event loop, open to replies until it shuts down. Replies are scheduled under
/// the gate's lock, so none can reach the loop after ``close()`` has returned (SwiftNIO refuses
/// work on a loop that has shut down).
final class ReplyGate: Sendable {
    private let open = Mutex(true)

    /// Writes one HTTP/1.1 response (with its `Content-Length`) on the handler's connection,
    /// unless the server has shut down.
    func respond(
        _ status: Int, _ headers: [(String, String)], _ body: [UInt8],
        to context: NIOLoopBound<ChannelHandlerContext>, on loop: any EventLoop
    ) {
        open.withLock { open in
            guard open else { return }
            loop.execute {
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
    }

    /// Closes the handler's connection without a reply, unless the server has shut down.
    func drop(_ context: NIOLoopBound<ChannelHandlerContext>, on loop: any EventLoop) {
        open.withLock { open in
            guard open else { return }
            loop.execute { context.value.close(promise: nil) }
        }
    }

    /// Refuses every later reply.
    func close() {
        open.withLock { $0 = false }
    }
}
