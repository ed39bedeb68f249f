import InkraTime
import Synchronization
import Testing

/// A gate a work waits on without looking at cancellation: it opens when the test opens it.
///
/// It also opens by itself 30 s after it was made: a watchdog, not a wait. Were `withDeadline` to
/// hold its caller until such a work ended, the test would then end and fail on what it expects,
/// rather than hang the run (a time limit alone reports, but still waits for the test's task).
private final class Gate: Sendable {
    private struct State {
        var open = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var watchdog: Task<Void, any Error>?
    }

    private let state = Mutex(State())

    init() {
        let watchdog = Task { [weak self] in
            try await Task.sleep(for: .seconds(30))
            self?.open()
        }
        state.withLock { $0.watchdog = watchdog }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let (waiters, watchdog) = state.withLock { state in
            state.open = true
            defer {
                state.waiters = []
                state.watchdog = nil
            }
            return (state.waiters, state.watchdog)
        }
        watchdog?.cancel()
        for waiter in waiters { waiter.resume() }
    }
}

/// Whether a work saw its cancellation.
private final class Flag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}

private struct WorkFailed: Error, Equatable {}

// Each test that could hang if `withDeadline` waited for the wrong child has a time limit, and its
// gates a watchdog, so a regression fails instead of blocking the run; nothing here measures how
// long anything took.
@Suite("withDeadline: the work or the deadline, whichever comes first")
struct WithDeadlineTests {
    @Test("A work that finishes first gives its result, and the sleep is not waited out", .timeLimit(.minutes(10)))
    func workFirst() async throws {
        let value = try await withDeadline(.now.advanced(by: .seconds(600))) { 42 }
        #expect(value == 42)
    }

    @Test("A work that fails first gives its error, not the deadline's", .timeLimit(.minutes(10)))
    func workFailsFirst() async {
        await #expect(throws: WorkFailed()) {
            try await withDeadline(.now.advanced(by: .seconds(600))) { () async throws -> Int in throw WorkFailed() }
        }
    }

    @Test("A deadline that comes first throws DeadlinePassed and cancels the work", .timeLimit(.minutes(10)))
    func deadlineFirst() async throws {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(20))
        let cancelled = Flag()
        let gate = Gate()
        let error = await #expect(throws: DeadlinePassed.self) {
            try await withDeadline(deadline) { () async throws -> Int in
                await withTaskCancellationHandler {
                    await gate.wait()
                } onCancel: {
                    cancelled.set()
                    gate.open()
                }
                try Task.checkCancellation()
                return 1
            }
        }
        #expect(error?.deadline == deadline)
        #expect(cancelled.isSet)
    }

    @Test("A work that ignores cancellation does not keep the caller past the deadline", .timeLimit(.minutes(10)))
    func workIgnoresCancellation() async throws {
        let gate = Gate()
        let finished = Flag()
        await #expect(throws: DeadlinePassed.self) {
            try await withDeadline(.now.advanced(by: .milliseconds(20))) { () async throws -> Int in
                await gate.wait()
                finished.set()
                return 1
            }
        }
        #expect(!finished.isSet, "the caller was kept waiting until the work ended")
        gate.open()
    }

    @Test("A deadline already past throws without waiting for a work that never ends", .timeLimit(.minutes(10)))
    func deadlineAlreadyPast() async {
        let gate = Gate()
        await #expect(throws: DeadlinePassed.self) {
            try await withDeadline(.now.advanced(by: .seconds(-1))) { () async throws -> Int in
                await gate.wait()
                return 1
            }
        }
        gate.open()
    }

    @Test("The work sees the caller's task-local values")
    func taskLocals() async throws {
        let seen = try await Probe.$value.withValue("request-1") {
            try await withDeadline(.now.advanced(by: .seconds(600))) { Probe.value }
        }
        #expect(seen == "request-1")
    }

    @Test("Cancelling the caller cancels the work and ends the wait", .timeLimit(.minutes(10)))
    func callerCancelled() async {
        let gate = Gate()
        let started = Gate()
        let caller = Task {
            try await withDeadline(.now.advanced(by: .seconds(600))) { () async throws -> Int in
                started.open()
                await gate.wait()
                return 1
            }
        }
        await started.wait()
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        gate.open()
    }
}

private enum Probe {
    @TaskLocal static var value = ""
}
