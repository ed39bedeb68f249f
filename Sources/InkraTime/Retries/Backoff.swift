/// The waits between attempts of an operation that may succeed when tried again: capped
/// exponential backoff with full jitter, as AWS's "Exponential Backoff And Jitter" describes it.
///
/// The wait after the `n`th attempt is a fraction of a ceiling that starts at ``base`` and doubles
/// with each attempt up to ``cap``: `jitter() × min(cap, base × 2ⁿ⁻¹)`. The fraction comes from
/// ``jitter``, a random number in 0..<1 unless a caller or a test injects its own; ``none`` (a
/// fraction of one) waits the ceiling itself. Each loop that retries keeps its own rules (how many
/// attempts, what may be retried, the deadline it stays within); this value only says how long to
/// wait.
package struct Backoff: Sendable {
    /// The first wait's ceiling.
    package var base: Duration
    /// The largest ceiling.
    package var cap: Duration
    /// A fraction in 0...1 of the ceiling to wait.
    package var jitter: @Sendable () -> Double

    /// A backoff.
    /// - Parameters:
    ///   - base: the first wait's ceiling; it doubles with each attempt.
    ///   - cap: the largest ceiling.
    ///   - jitter: a fraction in 0...1 of the ceiling to wait; random in 0..<1 (full jitter) by default.
    package init(
        base: Duration, cap: Duration, jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.base = base
        self.cap = cap
        self.jitter = jitter
    }

    /// The jitter that waits each ceiling whole: a deterministic exponential backoff.
    package static let none: @Sendable () -> Double = { 1 }

    /// The most the wait after `attempts` attempts may be: ``base`` doubled once per attempt after
    /// the first, no more than ``cap``.
    /// - Parameter attempts: the attempts made so far, 1 or more.
    /// - Returns: the ceiling of the next wait.
    package func ceiling(after attempts: Int) -> Duration {
        min(cap, base * (1 << min(max(attempts, 1) - 1, 20)))
    }

    /// The wait before the next attempt, after `attempts` attempts.
    /// - Parameter attempts: the attempts made so far, 1 or more.
    /// - Returns: ``jitter`` times ``ceiling(after:)``.
    package func delay(after attempts: Int) -> Duration {
        ceiling(after: attempts) * jitter()
    }
}
