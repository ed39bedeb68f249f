/// The instant by which the current request's work must be over, carried by the task.
///
/// The functions set it for each invocation from their invocation context (whose deadline the
/// runtime computes: API Gateway's integration timeout counted from when API Gateway received the
/// request, bounded by Lambda's deadline, less a margin), never their callers: it is the storage
/// layer's own mechanism. The table client, the usage store's retries and the question generator
/// read it, so every step gets what remains and nothing waits past the point where API Gateway
/// would give up on the caller. Outside an invocation there is none, and work is bounded by each
/// step's own timeout only.
///
/// Clean-up — giving a unit back, recording an answer, marking a refusal — must not be refused
/// because the work ran out of time: it runs under ``cleanup``, a short budget of its own past the
/// work's deadline (``cleaningUp(_:)``).
package enum RequestDeadline {
    /// The deadline of the task's request, when it has one.
    @TaskLocal package static var current: ContinuousClock.Instant?

    /// The instant by which the request's clean-up must be over, when the runtime set one.
    @TaskLocal package static var cleanup: ContinuousClock.Instant?

    /// The clean-up budget past the work's deadline when the runtime set no ``cleanup`` instant.
    package static let cleanupBudget: Duration = .seconds(2)

    /// The time left before the deadline (zero once it has passed), or `nil` without one.
    package static func remaining(at now: ContinuousClock.Instant = .now) -> Duration? {
        guard let current else { return nil }
        return max(.zero, now.duration(to: current))
    }

    /// Whether the deadline has passed.
    package static func hasPassed(at now: ContinuousClock.Instant = .now) -> Bool {
        remaining(at: now) == .zero
    }

    /// `duration`, shortened to what remains before the deadline.
    package static func bounded(_ duration: Duration, at now: ContinuousClock.Instant = .now) -> Duration {
        guard let left = remaining(at: now) else { return duration }
        return min(duration, left)
    }

    /// Runs work that may take at most `budget` from now, and never past the request's deadline:
    /// a read that only saves work when it answers at once (the standing refusal), so a slow
    /// table costs the request `budget` at most.
    /// - Parameters:
    ///   - budget: the most time `body` may take.
    ///   - body: the work.
    /// - Returns: what `body` returns.
    package static func within<Value>(_ budget: Duration, _ body: () async throws -> Value) async rethrows -> Value {
        let now = ContinuousClock.now
        let end = min(current ?? now.advanced(by: budget), now.advanced(by: budget))
        return try await $current.withValue(end) { try await body() }
    }

    /// Runs clean-up work with the clean-up instant as its deadline: ``cleanup`` when set, else
    /// ``cleanupBudget`` past the later of the work's deadline and now; without a deadline at all,
    /// `body` runs with none.
    /// - Parameter body: the clean-up (a give-back, a completion, a refusal mark).
    /// - Returns: what `body` returns.
    package static func cleaningUp<Value>(_ body: () async throws -> Value) async rethrows -> Value {
        try await $current.withValue(cleanupEnd()) { try await body() }
    }

    /// Runs best-effort clean-up that the caller's answer waits for: as ``cleaningUp(_:)``, but
    /// over at most `budget` from now, so the answer is not held back (nor a struggling table
    /// retried against) for more than `budget`; without a deadline at all, `body` runs with none.
    /// - Parameters:
    ///   - budget: the most time `body` may take.
    ///   - body: the clean-up (a refusal mark).
    /// - Returns: what `body` returns.
    package static func cleaningUp<Value>(
        atMost budget: Duration, _ body: () async throws -> Value
    ) async rethrows -> Value {
        let now = ContinuousClock.now
        let end = cleanupEnd(at: now).map { min($0, now.advanced(by: budget)) }
        return try await $current.withValue(end) { try await body() }
    }

    /// The instant by which clean-up must be over: ``cleanup`` when set, else ``cleanupBudget``
    /// past the later of the work's deadline and `now`; `nil` without a deadline.
    package static func cleanupEnd(at now: ContinuousClock.Instant = .now) -> ContinuousClock.Instant? {
        if let cleanup { return cleanup }
        guard let current else { return nil }
        return max(current, now).advanced(by: cleanupBudget)
    }
}
