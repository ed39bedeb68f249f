import EmulatorKit
import InkraJSON
import NIOCore
import NIOPosix
import Synchronization

/// The X-Ray daemon's side of `AWS_XRAY_DAEMON_ADDRESS` for local runtimes: a UDP listener on
/// loopback that reads each datagram as the daemon does (a JSON header line, a newline, a segment
/// document) and keeps the last documents by trace id, for `run-runtime --json` and `serve`'s
/// console to show beside the request.
package final class SegmentCollector: TraceSource {
    /// The most documents kept; older ones are dropped first.
    static let capacity = 1000
    /// The largest datagram read whole: a segment document may be up to 64 kB ("AWS X-Ray segment
    /// documents", https://docs.aws.amazon.com/xray/latest/devguide/xray-api-segmentdocuments.html),
    /// and a UDP datagram is at most 65,507 bytes of payload. NIO's default for a datagram channel
    /// reads 2,048 bytes and drops the rest, which cut the document of an invocation with a retry.
    static let largestDatagram = 65_536

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let store: Store
    package let address: String

    /// Starts listening on a free port of 127.0.0.1.
    package init() async throws {
        let store = Store()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.group = group
        self.store = store
        do {
            channel = try await DatagramBootstrap(group: group)
                .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.largestDatagram))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(Reader(store))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        address = "127.0.0.1:\(channel.localAddress?.port ?? 0)"
    }

    /// The document of the trace `root`, waiting at most `timeout` for it while runtimes send
    /// documents at all: once one has come, up to `timeout`; before any has, 50 ms for the first few
    /// invocations, then not at all (a runtime that does not trace, such as one not of this package,
    /// costs a replay nothing).
    package func document(forTrace root: String, within timeout: Duration) async -> JSONValue? {
        let wait = store.patience(upTo: timeout)
        let document = await store.document(forTrace: root, within: wait)
        if document == nil { store.missed() }
        return document
    }

    /// The document of the trace `root`, waiting up to `timeout` for it whether or not any has come:
    /// for a caller that knows the invocation was sampled, such as a test of the runtime's tracing.
    package func document(forTrace root: String, waitingUpTo timeout: Duration) async -> JSONValue? {
        await store.document(forTrace: root, within: timeout)
    }

    /// Stops listening.
    package func shutdown() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    /// Reads one datagram: the header line, then the document; anything else is ignored.
    static func document(in datagram: [UInt8]) -> JSONValue? {
        guard let newline = datagram.firstIndex(of: UInt8(ascii: "\n")),
            let header = try? JSONParser.parse(Array(datagram[..<newline])), header["format"] == "json",
            header["version"]?.int == 1,
            let document = try? JSONParser.parse(Array(datagram[(newline + 1)...])),
            document["trace_id"]?.string != nil
        else { return nil }
        return document
    }

    /// The documents by trace id, and who waits for which.
    private final class Store: Sendable {
        private struct State {
            var documents: [String: JSONValue] = [:]
            var order: [String] = []
            var waiters: [String: [(id: Int, continuation: CheckedContinuation<JSONValue?, Never>)]] = [:]
            var nextID = 0
            var received = 0
            var misses = 0
        }
        private let state = Mutex(State())

        /// How long to wait for a document: `limit` once any has come; 50 ms for the first three
        /// misses before that; then none.
        func patience(upTo limit: Duration) -> Duration {
            state.withLock { state in
                if state.received > 0 { return limit }
                return state.misses < 3 ? min(limit, .milliseconds(50)) : .zero
            }
        }

        func missed() { state.withLock { $0.misses += 1 } }

        func add(_ document: JSONValue) {
            guard let root = document["trace_id"]?.string else { return }
            let waiting = state.withLock { state in
                state.received += 1
                if state.documents[root] == nil { state.order.append(root) }
                state.documents[root] = document
                if state.order.count > SegmentCollector.capacity {
                    state.documents[state.order.removeFirst()] = nil
                }
                return state.waiters.removeValue(forKey: root) ?? []
            }
            for waiter in waiting { waiter.continuation.resume(returning: document) }
        }

        func document(forTrace root: String, within timeout: Duration) async -> JSONValue? {
            await withCheckedContinuation { continuation in
                let id: Int? = state.withLock { state in
                    if let document = state.documents[root] {
                        continuation.resume(returning: document)
                        return nil
                    }
                    state.nextID += 1
                    state.waiters[root, default: []].append((state.nextID, continuation))
                    return state.nextID
                }
                guard let id else { return }
                Task {
                    try? await Task.sleep(for: timeout)
                    let expired = self.state.withLock { state -> CheckedContinuation<JSONValue?, Never>? in
                        guard let index = state.waiters[root]?.firstIndex(where: { $0.id == id }) else { return nil }
                        return state.waiters[root]?.remove(at: index).continuation
                    }
                    expired?.resume(returning: nil)
                }
            }
        }
    }

    private final class Reader: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let store: Store

        init(_ store: Store) { self.store = store }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = Array(unwrapInboundIn(data).data.readableBytesView)
            if let document = SegmentCollector.document(in: bytes) { store.add(document) }
        }
    }
}
