/// Runs `work` against `deadline`: its result when it finishes first, ``DeadlinePassed`` when the
/// deadline comes first.
///
/// A task group runs two children, the work and a sleep until the deadline; the first to finish
/// wins and the other is cancelled. The work itself runs in a task of its own, which the group's
/// child awaits only until it is cancelled: a work that ignores cancellation is left to finish on
/// its own, and never keeps the caller waiting past the deadline (its result is then dropped). The
/// work inherits the caller's priority. Cancelling the caller cancels both.
/// - Parameters:
///   - deadline: the instant by which `work` must be over.
///   - work: what to run.
/// - Returns: what `work` returns.
/// - Throws: what `work` throws; ``DeadlinePassed`` when the deadline came first;
///   `CancellationError` when the caller was cancelled first.
package func withDeadline<Value: Sendable>(
    _ deadline: ContinuousClock.Instant,
    _ work: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let (outcomes, delivery) = AsyncStream.makeStream(of: Result<Value, any Error>.self, bufferingPolicy: .unbounded)
    let task = Task {
        let outcome: Result<Value, any Error>
        do {
            outcome = .success(try await work())
        } catch {
            outcome = .failure(error)
        }
        delivery.yield(outcome)
        delivery.finish()
    }
    defer { task.cancel() }
    return try await withThrowingTaskGroup(of: Value.self) { group in
        group.addTask {
            // An AsyncStream's iterator stops waiting when its task is cancelled: this child ends
            // then, whether or not the work has.
            for await outcome in outcomes { return try outcome.get() }
            throw CancellationError()
        }
        group.addTask {
            try await Task.sleep(until: deadline, clock: .continuous)
            throw DeadlinePassed(deadline: deadline)
        }
        defer { group.cancelAll() }
        // The group has two children, so `next()` has a first result (or error) to give.
        guard let value = try await group.next() else { throw CancellationError() }
        return value
    }
}

/// The error of ``withDeadline(_:_:)`` when the deadline came before the work's result.
package struct DeadlinePassed: Error, Sendable, Hashable, CustomStringConvertible {
    /// The deadline that passed.
    package var deadline: ContinuousClock.Instant

    /// The error for `deadline`.
    package init(deadline: ContinuousClock.Instant) { self.deadline = deadline }

    package var description: String { "the deadline passed before the work was over" }
}
