import NIOCore
import NIOHTTP1
import NIOSSL

/// The last handler of a client connection: writes one request at a time and collects its
/// answer, within a deadline and a body limit.
///
/// Lives on the connection's event loop; the client reaches it through an `NIOLoopBound`.
final class ResponseCollector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    /// A complete answer, and whether its connection may carry another request.
    struct Outcome: Sendable {
        var response: OutboundResponse
        var reusable: Bool
    }

    /// The connection was already closed when a request was to be written: nothing was sent, so
    /// the request can go out on another connection.
    struct NotSent: Error {
        /// Why the connection closed, when it is known.
        var cause: OutboundHTTPError?
    }

    private let endpoint: Endpoint
    private var context: ChannelHandlerContext?
    private var pending: EventLoopPromise<Outcome>?
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []
    private var limit = 0
    private var timeout: Scheduled<Void>?
    /// Why the connection can carry no more requests, once it cannot.
    private var failure: OutboundHTTPError?

    init(endpoint: Endpoint) {
        self.endpoint = endpoint
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Writes a request; `promise` gets the answer, or the error that ended the exchange.
    func send(
        _ head: HTTPRequestHead, body: [UInt8], deadline: NIODeadline, limit: Int, promise: EventLoopPromise<Outcome>
    ) {
        guard let context, failure == nil, pending == nil, context.channel.isActive else {
            promise.fail(NotSent(cause: failure))
            return
        }
        pending = promise
        self.head = nil
        self.body = []
        self.limit = limit
        let endpoint = endpoint
        let this = NIOLoopBound(self, eventLoop: context.eventLoop)
        timeout = context.eventLoop.scheduleTask(deadline: deadline) {
            this.value.fail(OutboundHTTPError(.timedOut, "\(endpoint) did not answer within the request's timeout"))
        }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if !body.isEmpty {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenFailure { error in
            this.value.fail(this.value.translate(error))
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard pending != nil else { return }
        switch unwrapInboundIn(data) {
        case .head(let received):
            head = received
        case .body(let buffer):
            guard body.count + buffer.readableBytes <= limit else {
                fail(
                    OutboundHTTPError(
                        .responseTooLarge, "\(endpoint) answered with a body larger than \(limit) bytes"))
                return
            }
            body.append(contentsOf: buffer.readableBytesView)
        case .end:
            guard let promise = pending, let head else {
                fail(OutboundHTTPError(.malformedResponse, "\(endpoint) ended an answer that had no status line"))
                return
            }
            pending = nil
            timeout?.cancel()
            timeout = nil
            let response = OutboundResponse(status: Int(head.status.code), headers: head.headers, body: body)
            body = []
            self.head = nil
            promise.succeed(Outcome(response: response, reusable: head.isKeepAlive && context.channel.isActive))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(translate(error))
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(OutboundHTTPError(.connectionClosed, "\(endpoint) closed the connection before answering"))
        context.fireChannelInactive()
    }

    /// Ends the exchange in progress, if any, and closes the connection; the first cause is kept.
    private func fail(_ error: OutboundHTTPError) {
        if failure == nil { failure = error }
        timeout?.cancel()
        timeout = nil
        if let promise = pending {
            pending = nil
            promise.fail(failure ?? error)
        }
        context?.close(promise: nil)
    }

    private func translate(_ error: any Error) -> OutboundHTTPError {
        switch error {
        case let error as OutboundHTTPError:
            return error
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            return OutboundHTTPError(.tlsFailed, "TLS with \(endpoint) failed: \(error)")
        case is HTTPParserError:
            return OutboundHTTPError(.malformedResponse, "\(endpoint) did not answer in HTTP/1.1: \(error)")
        default:
            return OutboundHTTPError(.connectionClosed, "the connection to \(endpoint) failed: \(error)")
        }
    }
}
