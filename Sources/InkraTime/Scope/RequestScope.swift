import InkraTracing

/// What the layers under a function need of the request under way, passed down as a value with
/// the calls that do its work: the instant its work must be over by, the instant its clean-up must
/// be over by, and the trace its steps are recorded in.
///
/// The runtime computes the deadlines (API Gateway's integration timeout counted from when API
/// Gateway received the request, bounded by Lambda's deadline, less a margin) and puts them on the
/// function's `InvocationContext`; a function binds its dependencies to the context's scope, and
/// the store, the table client, the model and Cognito clients bound by it give every step what
/// remains, so nothing waits past the point where API Gateway would give up on the caller. A scope
/// without a deadline (a test, a local call, a start-up read) bounds work by each step's own
/// timeout only.
///
/// Clean-up — giving a unit back, recording an answer, marking a refusal — must not be refused
/// because the work ran out of time: it runs in ``cleaningUp(at:)``, a scope whose deadline is a
/// short budget of its own past the work's.
package struct RequestScope: Traced {
    /// The instant by which the request's work must be over; `nil`: none.
    package var deadline: ContinuousClock.Instant?
    /// The instant by which the request's clean-up must be over; `nil`: ``cleanupBudget`` past
    /// ``deadline``.
    package var cleanupDeadline: ContinuousClock.Instant?
    /// Where the request's spans go, and the span they are in.
    package var trace: Trace

    /// The clean-up budget past the work's deadline when the runtime set no clean-up instant.
    package static let cleanupBudget: Duration = .seconds(2)

    /// A scope.
    /// - Parameters:
    ///   - deadline: when the work must be over; by default never.
    ///   - cleanupDeadline: when the clean-up must be over; by default ``cleanupBudget`` past `deadline`.
    ///   - trace: where spans go; by default nowhere.
    package init(
        deadline: ContinuousClock.Instant? = nil, cleanupDeadline: ContinuousClock.Instant? = nil,
        trace: Trace = Trace()
    ) {
        self.deadline = deadline
        self.cleanupDeadline = cleanupDeadline
        self.trace = trace
    }

    /// The time left before the deadline (zero once it has passed), or `nil` without one.
    package func remaining(at now: ContinuousClock.Instant = .now) -> Duration? {
        guard let deadline else { return nil }
        return max(.zero, now.duration(to: deadline))
    }

    /// Whether the deadline has passed.
    package func hasPassed(at now: ContinuousClock.Instant = .now) -> Bool {
        remaining(at: now) == .zero
    }

    /// `duration`, shortened to what remains before the deadline.
    package func bounded(_ duration: Duration, at now: ContinuousClock.Instant = .now) -> Duration {
        guard let left = remaining(at: now) else { return duration }
        return min(duration, left)
    }

    /// This scope for work that may take at most `budget` from `now`, and never past the deadline:
    /// a read that only saves work when it answers at once (the standing refusal), so a slow table
    /// costs the request `budget` at most.
    package func within(_ budget: Duration, at now: ContinuousClock.Instant = .now) -> RequestScope {
        var scope = self
        scope.deadline = min(deadline ?? now.advanced(by: budget), now.advanced(by: budget))
        return scope
    }

    /// This scope for clean-up: its deadline is the clean-up instant (``cleanupEnd(at:)``); without
    /// a deadline at all, it has none.
    package func cleaningUp(at now: ContinuousClock.Instant = .now) -> RequestScope {
        var scope = self
        scope.deadline = cleanupEnd(at: now)
        return scope
    }

    /// This scope for best-effort clean-up that the caller's answer waits for: as
    /// ``cleaningUp(at:)``, but over at most `budget` from `now`, so the answer is not held back
    /// (nor a struggling table retried against) for more than `budget`.
    package func cleaningUp(atMost budget: Duration, at now: ContinuousClock.Instant = .now) -> RequestScope {
        var scope = self
        scope.deadline = cleanupEnd(at: now).map { min($0, now.advanced(by: budget)) }
        return scope
    }

    /// The instant by which clean-up must be over: ``cleanupDeadline`` when set, else
    /// ``cleanupBudget`` past the later of the deadline and `now`; `nil` without a deadline.
    package func cleanupEnd(at now: ContinuousClock.Instant = .now) -> ContinuousClock.Instant? {
        if let cleanupDeadline { return cleanupDeadline }
        guard let deadline else { return nil }
        return max(deadline, now).advanced(by: Self.cleanupBudget)
    }
}
