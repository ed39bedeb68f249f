/// The instant by which the current request's work must be over, carried by the task.
///
/// The runtime sets it for each invocation (the earlier of Lambda's deadline and API Gateway's
/// integration timeout, less a margin); the table client, the usage store's retries and the
/// question generator read it, so every step gets what remains and nothing waits past the point
/// where API Gateway would give up on the caller. Outside an invocation there is none, and work is
/// bounded by each step's own timeout only.
public enum RequestDeadline {
    /// The deadline of the task's request, when it has one.
    @TaskLocal public static var current: ContinuousClock.Instant?

    /// The time left before the deadline (zero once it has passed), or `nil` without one.
    public static func remaining(at now: ContinuousClock.Instant = .now) -> Duration? {
        guard let current else { return nil }
        return max(.zero, now.duration(to: current))
    }

    /// Whether the deadline has passed.
    public static func hasPassed(at now: ContinuousClock.Instant = .now) -> Bool {
        remaining(at: now) == .zero
    }

    /// `duration`, shortened to what remains before the deadline.
    public static func bounded(_ duration: Duration, at now: ContinuousClock.Instant = .now) -> Duration {
        guard let left = remaining(at: now) else { return duration }
        return min(duration, left)
    }
}
