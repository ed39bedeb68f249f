import HTTPText
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A small HTTP/1.1 client for the stack's outbound calls (DynamoDB, the JWKS, the model
/// endpoint): `http` and `https` over SwiftNIO and NIOSSL, keep-alive connections pooled by
/// endpoint (at most eight open to one endpoint; more requests wait for one), one request per
/// connection at a time, a timeout that covers waiting for a connection, connecting, the TLS
/// handshake and the whole answer, and a limit on the answer's size.
///
/// Certificates are checked against the system's trust roots and the host name, as with any TLS
/// client; the configuration can be replaced (tests trust their own certificate). Redirects are
/// not followed: a 3xx is an answer like any other.
package final class OutboundHTTPClient: Sendable {
    /// A client on the shared event loops, with the default TLS configuration; never shut down.
    package static let shared = OutboundHTTPClient()

    private let group: any EventLoopGroup
    private let tlsConfiguration: TLSConfiguration
    private let tlsContext = NIOLockedValueBox<NIOSSLContext?>(nil)
    private let pool: ConnectionPool

    /// Creates a client.
    /// - Parameters:
    ///   - eventLoopGroup: where the connections run (the process's shared group by default).
    ///   - tlsConfiguration: how `https` connections are made and checked.
    ///   - maximumConnectionsPerEndpoint: connections open at once to one scheme, host and port;
    ///     more requests wait for one to come free, within their timeout.
    ///   - maximumIdleConnectionsPerEndpoint: of those, how many are kept open while idle.
    package init(
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        tlsConfiguration: TLSConfiguration = .makeClientConfiguration(),
        maximumConnectionsPerEndpoint: Int = 8,
        maximumIdleConnectionsPerEndpoint: Int = 8
    ) {
        self.group = eventLoopGroup
        self.tlsConfiguration = tlsConfiguration
        self.pool = ConnectionPool(
            maximumConnections: maximumConnectionsPerEndpoint, maximumIdle: maximumIdleConnectionsPerEndpoint,
            timers: eventLoopGroup)
    }

    /// Sends a request and reads the whole answer.
    /// - Parameters:
    ///   - request: what to send.
    ///   - timeout: how long waiting for a connection, connecting and the whole exchange may take.
    ///   - maximumResponseBytes: the largest body accepted.
    /// - Returns: the answer, whatever its status.
    /// - Throws: ``OutboundHTTPError`` naming the endpoint and the cause, or `CancellationError`
    ///   when the task is cancelled.
    package func execute(
        _ request: OutboundRequest, timeout: Duration, maximumResponseBytes: Int = 8 * 1024 * 1024
    ) async throws -> OutboundResponse {
        let endpoint = try Endpoint(request.url)
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        let head = Self.head(of: request, endpoint: endpoint)
        while true {
            let connection: ConnectionPool.Connection
            switch try await pool.lease(endpoint, deadline: deadline) {
            case .idle(let idle):
                connection = idle
            case .slot:
                do {
                    connection = try await connect(to: endpoint, deadline: deadline)
                } catch {
                    pool.handBackSlot(to: endpoint)
                    throw error
                }
            }
            let promise = connection.channel.eventLoop.makePromise(of: ResponseCollector.Outcome.self)
            let collector = connection.collector
            connection.channel.eventLoop.execute {
                collector.value.send(
                    head, body: request.body, deadline: deadline, limit: maximumResponseBytes, promise: promise)
            }
            let outcome: ResponseCollector.Outcome
            do {
                outcome = try await withTaskCancellationHandler {
                    try await promise.futureResult.get()
                } onCancel: {
                    connection.channel.close(promise: nil)
                }
            } catch let notSent as ResponseCollector.NotSent {
                // The connection closed before the request was written, so nothing was sent: an
                // idle one the server closed is replaced; a new one that closed is the error.
                pool.handBack(connection, to: endpoint, reusable: false)
                if connection.reused { continue }
                throw notSent.cause
                    ?? OutboundHTTPError(.connectionClosed, "\(endpoint) closed the connection before the request")
            } catch {
                pool.handBack(connection, to: endpoint, reusable: false)
                if Task.isCancelled { throw CancellationError() }
                throw error
            }
            pool.handBack(connection, to: endpoint, reusable: outcome.reusable)
            return outcome.response
        }
    }

    /// Waits until every connection to `url`'s endpoint that is idle now has closed: for a test of a
    /// server that closes a keep-alive connection after answering, which the client must see before
    /// its next request.
    package func idleConnectionsClosed(to url: HTTPURL) async throws {
        for channel in pool.idleChannels(try Endpoint(url)) {
            try? await channel.closeFuture.get()
        }
    }

    /// Closes the idle connections; requests after this fail with
    /// ``OutboundHTTPError/Code/shutDown``. Requests in flight finish.
    package func shutdown() async {
        for connection in pool.shutDown() {
            try? await connection.channel.close()
        }
    }

    private static func head(of request: OutboundRequest, endpoint: Endpoint) -> HTTPRequestHead {
        var headers = HTTPHeaders(request.headers)
        headers.remove(name: "Content-Length")
        headers.remove(name: "Transfer-Encoding")
        if !headers.contains(name: "Host") {
            headers.replaceOrAdd(name: "Host", value: endpoint.hostHeader)
        }
        if !request.body.isEmpty || request.method != .GET {
            headers.add(name: "Content-Length", value: String(request.body.count))
        }
        return HTTPRequestHead(
            version: .http1_1, method: request.method, uri: Endpoint.target(of: request.url), headers: headers)
    }

    private func connect(to endpoint: Endpoint, deadline: NIODeadline) async throws -> ConnectionPool.Connection {
        let tls = endpoint.secure ? try makeTLSContext(for: endpoint) : nil
        let remaining = deadline - .now()
        guard remaining > .zero else {
            throw OutboundHTTPError(.timedOut, "no time was left to connect to \(endpoint)")
        }
        // Collectors are kept from here, by channel (the connect may try several addresses): a
        // connection whose TLS handshake fails at once may have left its pipeline before it could
        // be looked up there, and its collector holds the cause.
        let made = NIOLockedValueBox<[ObjectIdentifier: NIOLoopBound<ResponseCollector>]>([:])
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(remaining)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        let handler = try NIOSSLClientHandler(
                            context: tls, serverHostname: endpoint.hostIsAddress ? nil : endpoint.host)
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    let collector = ResponseCollector(endpoint: endpoint)
                    try channel.pipeline.syncOperations.addHandler(collector)
                    made.withLockedValue {
                        $0[ObjectIdentifier(channel)] = NIOLoopBound(collector, eventLoop: channel.eventLoop)
                    }
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: endpoint.host, port: endpoint.port).get()
        } catch ChannelError.connectTimeout {
            throw OutboundHTTPError(.timedOut, "connecting to \(endpoint) took longer than the request's timeout")
        } catch {
            throw OutboundHTTPError(.connectFailed, "cannot connect to \(endpoint): \(error)")
        }
        let pool = self.pool
        channel.closeFuture.whenComplete { _ in pool.forget(channel, of: endpoint) }
        guard let collector = made.withLockedValue({ $0[ObjectIdentifier(channel)] }) else {
            channel.close(promise: nil)
            throw OutboundHTTPError(.connectFailed, "the connection to \(endpoint) was set up without its handlers")
        }
        return ConnectionPool.Connection(channel: channel, collector: collector)
    }

    private func makeTLSContext(for endpoint: Endpoint) throws -> NIOSSLContext {
        try tlsContext.withLockedValue { context in
            if let context { return context }
            do {
                let made = try NIOSSLContext(configuration: tlsConfiguration)
                context = made
                return made
            } catch {
                throw OutboundHTTPError(.tlsFailed, "cannot set up TLS for \(endpoint): \(error)")
            }
        }
    }
}
