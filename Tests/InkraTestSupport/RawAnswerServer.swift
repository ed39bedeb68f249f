import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A server on 127.0.0.1 that answers each request's head with fixed bytes, exactly as given
/// (chunked, close-delimited or broken answers the HTTP stub would not write), and then closes
/// the connection when asked to.
package final class RawAnswerServer: Sendable {
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let channel: any Channel
    private let accepted = NIOLockedValueBox(0)

    package var port: Int { channel.localAddress?.port ?? 0 }
    /// How many connections clients have opened.
    package var connectionCount: Int { accepted.withLockedValue { $0 } }

    /// - Parameters:
    ///   - answer: the bytes written after each request head.
    ///   - closeAfterAnswer: whether the connection is closed once they are written.
    package init(answer: String, closeAfterAnswer: Bool) async throws {
        let accepted = self.accepted
        channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                accepted.withLockedValue { $0 += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        Answerer(answer: Array(answer.utf8), closeAfterAnswer: closeAfterAnswer))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    /// Stops the server without waiting (for a `defer`), blocking no thread.
    package func shutdown() {
        let group = self.group
        channel.close().whenComplete { _ in group.shutdownGracefully { _ in } }
    }

    private final class Answerer: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        let answer: [UInt8]
        let closeAfterAnswer: Bool
        var received: [UInt8] = []

        init(answer: [UInt8], closeAfterAnswer: Bool) {
            self.answer = answer
            self.closeAfterAnswer = closeAfterAnswer
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            received += unwrapInboundIn(data).readableBytesView
            let end: [UInt8] = Array("\r\n\r\n".utf8)
            while let range = received.firstRange(of: end) {
                received.removeSubrange(..<range.upperBound)
                context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: answer)), promise: nil)
                if closeAfterAnswer { context.close(promise: nil) }
            }
        }
    }
}
