import Foundation
import HTTPText
import InkraTestSupport
import NIOCore
import NIOPosix
import Testing

@testable import OutboundHTTP

@Suite("The connection pool's bookkeeping")
struct ConnectionPoolTests {
    static func endpoint(_ text: String) throws -> Endpoint {
        try Endpoint(#require(HTTPURL(string: text)))
    }

    struct UnexpectedLease: Error {}

    /// Leases a slot to open a connection in: what a pool with room gives for an endpoint that has
    /// no idle connection. Its deadline is for hangs only: a waiter that timed out while the test
    /// could not run (a busy machine) would leave `waitersKeepTheirEndpoint` waiting for it forever.
    static func leaseSlot(_ pool: ConnectionPool, _ endpoint: Endpoint) async throws {
        guard case .slot = try await pool.lease(endpoint, deadline: .now() + TimeAmount(Patience.hang)) else {
            throw UnexpectedLease()
        }
    }

    /// A pool of one connection whose only slot is taken, for an endpoint.
    static func fullPool(_ url: String) async throws -> (ConnectionPool, Endpoint) {
        let pool = ConnectionPool(maximumConnections: 1, maximumIdle: 1, timers: MultiThreadedEventLoopGroup.singleton)
        let endpoint = try Self.endpoint(url)
        try await leaseSlot(pool, endpoint)
        return (pool, endpoint)
    }

    /// Hands back an endpoint's last slot, after which the pool keeps nothing for it.
    static func handBackLast(_ pool: ConnectionPool, _ endpoint: Endpoint) {
        #expect(pool.endpointCount == 1)
        pool.handBackSlot(to: endpoint)
        #expect(pool.endpointCount == 0)
    }

    @Test("An endpoint is forgotten once it has no connection and no waiter, however many were called")
    func forgetsIdleEndpoints() async throws {
        let pool = ConnectionPool(maximumConnections: 2, maximumIdle: 2, timers: MultiThreadedEventLoopGroup.singleton)
        for index in 0..<200 {
            let endpoint = try Self.endpoint("http://host\(index).example:8080")
            try await Self.leaseSlot(pool, endpoint)
            Self.handBackLast(pool, endpoint)
        }
    }

    @Test("A waiter keeps its endpoint, and the slot it is handed is counted until it comes back")
    func waitersKeepTheirEndpoint() async throws {
        let (pool, endpoint) = try await Self.fullPool("https://api.example")
        let waiting = Task { try await Self.leaseSlot(pool, endpoint) }
        // The second lease waits for the only slot; the endpoint stays while it does.
        while pool.waiterCount(for: endpoint) == 0 { await Task.yield() }
        #expect(pool.endpointCount == 1)
        pool.handBackSlot(to: endpoint)
        try await waiting.value
        Self.handBackLast(pool, endpoint)
    }

    @Test("A waiter that times out leaves nothing behind once the slot it waited for comes back")
    func timedOutWaiter() async throws {
        let (pool, endpoint) = try await Self.fullPool("http://127.0.0.1:9")
        await #expect(throws: OutboundHTTPError.self) {
            _ = try await pool.lease(endpoint, deadline: .now() + .milliseconds(50))
        }
        #expect(pool.waiterCount(for: endpoint) == 0)
        Self.handBackLast(pool, endpoint)
    }
}
