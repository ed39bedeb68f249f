import NIOConcurrencyHelpers
import NIOCore

/// The client's connections, by endpoint: at most `maximumConnections` open to one endpoint
/// (idle, in use or being made), of which at most `maximumIdle` are kept idle. A request beyond
/// the limit waits, first come first served, for a connection or a slot to be handed back, until
/// its deadline.
final class ConnectionPool: Sendable {
    /// One HTTP/1.1 connection and the handler that carries its requests.
    struct Connection: Sendable {
        let channel: any Channel
        let collector: NIOLoopBound<ResponseCollector>
        /// Whether it carried an earlier request.
        var reused = false
    }

    /// What a request may use: an idle connection, or a slot to open one in.
    enum Lease: Sendable {
        case idle(Connection)
        case slot
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Lease, any Error>
    }

    private struct Slots {
        var idle: [Connection] = []
        /// Connections open or being made, idle ones included.
        var open = 0
        var waiters: [Waiter] = []
    }

    private struct State {
        var endpoints: [Endpoint: Slots] = [:]
        var isShutDown = false
        var lastWaiter: UInt64 = 0

        /// Keeps an endpoint's slots, or forgets the endpoint once it has no connection (idle ones
        /// are counted as open) and no waiter, so a client that calls many hosts over its life
        /// keeps state only for those it is using.
        mutating func keep(_ slots: Slots, for endpoint: Endpoint) {
            endpoints[endpoint] = slots.open == 0 && slots.waiters.isEmpty ? nil : slots
        }
    }

    let maximumConnections: Int
    let maximumIdle: Int
    private let timers: any EventLoopGroup
    private let state = NIOLockedValueBox(State())

    init(maximumConnections: Int, maximumIdle: Int, timers: any EventLoopGroup) {
        self.maximumConnections = max(1, maximumConnections)
        self.maximumIdle = min(max(0, maximumIdle), self.maximumConnections)
        self.timers = timers
    }

    /// An idle connection to `endpoint`, or a slot to open one, waiting for either until
    /// `deadline` when the endpoint has its most connections.
    /// - Throws: ``OutboundHTTPError`` (timed out, shut down) or `CancellationError`.
    func lease(_ endpoint: Endpoint, deadline: NIODeadline) async throws -> Lease {
        let id = state.withLockedValue { state in
            state.lastWaiter += 1
            return state.lastWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Lease, any Error>) in
                let now: Result<Lease, any Error>? = state.withLockedValue { state in
                    guard !state.isShutDown else { return .failure(Self.shutDownError(endpoint)) }
                    guard !Task.isCancelled else { return .failure(CancellationError()) }
                    var slots = state.endpoints[endpoint, default: Slots()]
                    defer { state.keep(slots, for: endpoint) }
                    while var connection = slots.idle.popLast() {
                        if connection.channel.isActive {
                            connection.reused = true
                            return .success(.idle(connection))
                        }
                        slots.open -= 1
                    }
                    if slots.open < maximumConnections {
                        slots.open += 1
                        return .success(.slot)
                    }
                    slots.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let now {
                    continuation.resume(with: now)
                    return
                }
                timers.next().scheduleTask(deadline: deadline) {
                    self.abandon(
                        id, endpoint,
                        OutboundHTTPError(
                            .timedOut, "no connection to \(endpoint) came free within the request's timeout"))
                }
            }
        } onCancel: {
            abandon(id, endpoint, CancellationError())
        }
    }

    /// The channels of the idle connections to `endpoint`.
    func idleChannels(_ endpoint: Endpoint) -> [any Channel] {
        state.withLockedValue { $0.endpoints[endpoint]?.idle.map(\.channel) ?? [] }
    }

    /// Ends a lease: a connection that can carry another request goes to the first waiter or is
    /// kept idle; otherwise it is closed and its slot goes to the first waiter.
    func handBack(_ connection: Connection, to endpoint: Endpoint, reusable: Bool) {
        let (waiter, lease, close) = state.withLockedValue { state -> (Waiter?, Lease?, Bool) in
            var slots = state.endpoints[endpoint, default: Slots()]
            defer { state.keep(slots, for: endpoint) }
            if reusable && !state.isShutDown && connection.channel.isActive {
                if !slots.waiters.isEmpty {
                    var reused = connection
                    reused.reused = true
                    return (slots.waiters.removeFirst(), .idle(reused), false)
                }
                if slots.idle.count < maximumIdle {
                    slots.idle.append(connection)
                    return (nil, nil, false)
                }
            }
            return (Self.passSlot(&slots, shutDown: state.isShutDown), .slot, true)
        }
        if close { connection.channel.close(promise: nil) }
        if let waiter, let lease { waiter.continuation.resume(returning: lease) }
    }

    /// Gives back a slot whose connection could not be made.
    func handBackSlot(to endpoint: Endpoint) {
        let waiter = state.withLockedValue { state in
            var slots = state.endpoints[endpoint, default: Slots()]
            defer { state.keep(slots, for: endpoint) }
            return Self.passSlot(&slots, shutDown: state.isShutDown)
        }
        waiter?.continuation.resume(returning: .slot)
    }

    /// Drops an idle connection the server closed, and passes its slot on.
    func forget(_ channel: any Channel, of endpoint: Endpoint) {
        let waiter = state.withLockedValue { state -> Waiter? in
            guard var slots = state.endpoints[endpoint],
                let index = slots.idle.firstIndex(where: { $0.channel === channel })
            else { return nil }
            defer { state.keep(slots, for: endpoint) }
            slots.idle.remove(at: index)
            return Self.passSlot(&slots, shutDown: state.isShutDown)
        }
        waiter?.continuation.resume(returning: .slot)
    }

    /// Refuses new leases, fails the waiting ones, and returns the idle connections to close.
    func shutDown() -> [Connection] {
        let (idle, waiters) = state.withLockedValue { state in
            state.isShutDown = true
            defer { state.endpoints = [:] }
            return (
                state.endpoints.values.flatMap(\.idle),
                state.endpoints.map { endpoint, slots in slots.waiters.map { (endpoint, $0) } }.flatMap { $0 }
            )
        }
        for (endpoint, waiter) in waiters { waiter.continuation.resume(throwing: Self.shutDownError(endpoint)) }
        return idle
    }

    /// The endpoints the pool keeps state for: those with a connection open, idle or being made, or
    /// a request waiting for one.
    var endpointCount: Int { state.withLockedValue { $0.endpoints.count } }

    /// The requests waiting for a connection to an endpoint.
    func waiterCount(for endpoint: Endpoint) -> Int {
        state.withLockedValue { $0.endpoints[endpoint]?.waiters.count ?? 0 }
    }

    /// A freed slot: the first waiter's, or one connection fewer.
    private static func passSlot(_ slots: inout Slots, shutDown: Bool) -> Waiter? {
        if !shutDown && !slots.waiters.isEmpty { return slots.waiters.removeFirst() }
        slots.open -= 1
        return nil
    }

    private func abandon(_ id: UInt64, _ endpoint: Endpoint, _ error: any Error) {
        let waiter = state.withLockedValue { state -> Waiter? in
            guard var slots = state.endpoints[endpoint], let index = slots.waiters.firstIndex(where: { $0.id == id })
            else { return nil }
            defer { state.keep(slots, for: endpoint) }
            return slots.waiters.remove(at: index)
        }
        waiter?.continuation.resume(throwing: error)
    }

    private static func shutDownError(_ endpoint: Endpoint) -> OutboundHTTPError {
        OutboundHTTPError(.shutDown, "the HTTP client was shut down; \(endpoint) was not called")
    }
}
