import Foundation
import InkraTime
import Synchronization

/// The invocations a local Runtime API hands out, and what comes back for them: the logic of
/// the server (EmulatorServer's `RuntimeAPIServer`) that speaks HTTP to the runtime.
package actor RuntimeQueue {
    /// One invocation waiting for, or taken by, the runtime.
    package struct Pending: Sendable {
        /// The invocation's id (`Lambda-Runtime-Aws-Request-Id`).
        package var requestID: String
        /// The event.
        package var event: [UInt8]
        /// When the invocation times out (`Lambda-Runtime-Deadline-Ms`).
        package var deadline: Timestamp
        /// The function's ARN (`Lambda-Runtime-Invoked-Function-Arn`).
        package var functionARN: String
        /// The X-Ray trace header (`Lambda-Runtime-Trace-Id`).
        package var traceID: String
    }

    /// The clock deadlines are set by.
    private let now: @Sendable () -> Timestamp
    private var pending: [Pending] = []
    private var waiters: [CheckedContinuation<Pending?, Never>] = []
    private var inFlight: [String: CheckedContinuation<RuntimeOutcome, Never>] = [:]
    private var initFailure: RuntimeOutcome?

    /// A queue whose deadlines are set by `now`.
    package init(now: @escaping @Sendable () -> Timestamp) { self.now = now }
    private var ended: String?
    private var closed = false
    private var dropNextConnection = false
    /// How many times the runtime asked for the next invocation.
    package private(set) var nextCalls = 0

    /// Whether a runtime ever asked for an invocation; read without entering the actor, so a
    /// server with no runtime behind it answers every request without a hop to the queue.
    package nonisolated let hasBeenPolled = Mutex(false)

    /// Whether invocations go to the runtime rather than in-process: one was expected (`serve
    /// --bootstrap` started it), has polled, or has reported a start-up failure. From then on an
    /// invocation waits for the runtime, or fails as Lambda fails it when the runtime failed to
    /// start or ended; it never falls back to the in-process function. Read without entering the actor.
    package nonisolated let takesInvocations = Mutex(false)

    /// Says a runtime is on its way (started by the server): invocations wait for its first poll.
    package nonisolated func expectRuntime() { takesInvocations.withLock { $0 = true } }

    private var failureObservers: [@Sendable (RuntimeOutcome) -> Void] = []

    /// Calls `observer` with a start-up failure or the runtime's end, when either comes.
    package func observeFailures(_ observer: @escaping @Sendable (RuntimeOutcome) -> Void) {
        failureObservers.append(observer)
    }

    /// Waits for the next invocation (the runtime's long poll).
    /// - Returns: the invocation; `nil` once the server closes, or when a test asked for this
    ///   poll's connection to be dropped (``dropNext()``): the server then drops the connection.
    package func next() async -> Pending? {
        if dropNextConnection {
            dropNextConnection = false
            dropped += 1
            return nil
        }
        if nextCalls == 0 {
            hasBeenPolled.withLock { $0 = true }
            takesInvocations.withLock { $0 = true }
        }
        nextCalls += 1
        if closed { return nil }
        if !pending.isEmpty && !held { return pending.removeFirst() }
        return await withCheckedContinuation { waiters.append($0) }
    }

    // MARK: Replacing the runtime (serve --watch)

    /// Whether invocations are held back from the runtime: it is being replaced.
    private var held = false
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []

    /// Holds invocations back from the runtime: they wait in the queue, and none is handed out, until
    /// ``finishReplacement()``. Those already handed out go on.
    package func hold() { held = true }

    /// Waits until the runtime holds no invocation (every one in flight is still in the queue).
    package func idle() async {
        if isIdle { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    private var isIdle: Bool { inFlight.keys.allSatisfy { id in pending.contains { $0.requestID == id } } }

    /// The old runtime is gone: its long polls are dropped, its failure forgotten, and the invocations
    /// held go to the next runtime that polls.
    package func finishReplacement() {
        for waiter in waiters { waiter.resume(returning: nil) }
        waiters.removeAll()
        ended = nil
        initFailure = nil
        held = false
    }

    /// Ends the long polls under way and refuses later ones: the server is shutting down.
    package func close() {
        closed = true
        for waiter in waiters { waiter.resume(returning: nil) }
        waiters.removeAll()
    }

    /// Hands an event to the runtime and waits for its outcome.
    /// - Parameters:
    ///   - event: the event's bytes.
    ///   - timeout: how long the runtime has.
    ///   - functionARN: the function's ARN, for its header.
    ///   - traceHeader: the `Lambda-Runtime-Trace-Id` to send (`Root=…;Parent=…;Sampled=1` for a
    ///     traced invocation); by default a new, unsampled trace.
    package func invoke(
        _ event: [UInt8], timeout: TimeInterval, functionARN: String, traceHeader: String? = nil
    ) async -> RuntimeOutcome {
        if !held, let initFailure { return initFailure }
        if !held, let ended { return .runtimeExited(ended) }
        let requestID = RequestID.make()
        let start = now()
        let item = Pending(
            requestID: requestID,
            event: event,
            deadline: start.addingTimeInterval(timeout),
            functionARN: functionARN,
            traceID: traceHeader
                ?? "Root=1-\(String(Int(start.timeIntervalSince1970), radix: 16))-\(requestID.filter { $0 != "-" }.prefix(24));Sampled=0"
        )
        let timer = Task {
            // Cancelled once the runtime answers: then it ends here, without a hop to the queue.
            do { try await Task.sleep(for: .seconds(timeout)) } catch { return }
            self.complete(requestID, with: .timedOut(timeout))
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            inFlight[requestID] = continuation
            if waiters.isEmpty || held {
                pending.append(item)
            } else {
                waiters.removeFirst().resume(returning: item)
            }
        }
    }

    /// Records an invocation's outcome; false when the id is unknown or already answered.
    @discardableResult
    package func complete(_ requestID: String, with outcome: RuntimeOutcome) -> Bool {
        guard let continuation = inFlight.removeValue(forKey: requestID) else { return false }
        pending.removeAll { $0.requestID == requestID }
        continuation.resume(returning: outcome)
        if isIdle {
            for waiter in idleWaiters { waiter.resume() }
            idleWaiters.removeAll()
        }
        return true
    }

    /// Records a start-up failure: every invocation fails with it.
    package func failInitialization(_ outcome: RuntimeOutcome) {
        takesInvocations.withLock { $0 = true }
        initFailure = outcome
        failAll(outcome)
        for observer in failureObservers { observer(outcome) }
    }

    /// Records that the runtime process ended.
    package func runtimeEnded(_ reason: String) {
        ended = reason
        failAll(initFailure ?? .runtimeExited(reason))
        for observer in failureObservers { observer(.runtimeExited(reason)) }
    }

    /// Whether a runtime is attached: it has asked for an invocation, and has neither ended nor
    /// failed to start. Between its answer and its next poll it is still attached — invocations
    /// wait in the queue for it, as they wait for a busy sandbox, rather than run elsewhere.
    package var isAttached: Bool { ended == nil && initFailure == nil && nextCalls > 0 }

    /// The start-up failure, if the runtime reported one.
    package var initializationFailure: RuntimeOutcome? { initFailure }

    /// Whether the runtime failed to start or ended, and no other has taken its place
    /// (``finishReplacement()``): invocations would fail at once.
    package var hasFailed: Bool { initFailure != nil || ended != nil }

    /// Asks the server to drop the next connection that asks for an invocation (tests).
    package func dropNext() { dropNextConnection = true }

    /// How many connections were dropped on purpose.
    package private(set) var dropped = 0

    private func failAll(_ outcome: RuntimeOutcome) {
        for (_, continuation) in inFlight { continuation.resume(returning: outcome) }
        inFlight.removeAll()
        pending.removeAll()
        // Nothing is with the runtime any more: a replacement waiting for it to finish goes on.
        for waiter in idleWaiters { waiter.resume() }
        idleWaiters.removeAll()
    }
}

/// What the runtime did with an invocation.
package enum RuntimeOutcome: Sendable, Hashable {
    /// `POST …/response` with this body.
    case response([UInt8])
    /// `POST …/error` with this error type and body.
    case error(type: String, body: [UInt8])
    /// `POST /runtime/init/error`.
    case initializationFailed(type: String, body: [UInt8])
    /// No answer before the deadline.
    case timedOut(TimeInterval)
    /// The runtime process ended.
    case runtimeExited(String)
}
