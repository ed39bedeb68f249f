/// How far ``InkraClient`` goes to get an answer for one intended call: every retry of the call
/// sends the same `Idempotency-Key`, so the call is charged at most once however many there are.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts of one call, the first included, across 409s, 503s, throttling and lost answers
    /// (a fresh token after a 401 is one more, on top).
    public var maximumAttempts: Int
    /// The longest wait before one retry: a `Retry-After` (or 409 `retryAfter`) beyond it is not
    /// waited for, and the call ends with the error instead.
    public var maximumWait: Duration
    /// The first wait after a lost answer or a 503/429 without `Retry-After`; it doubles on each
    /// retry, up to ``maximumWait``.
    public var initialBackoff: Duration
    /// How long one attempt may take before it counts as lost (`URLRequest.timeoutInterval`).
    /// API Gateway gives up at 29 seconds, so the default of 35 seconds lets every answer arrive.
    public var attemptTimeout: Duration

    /// A policy.
    /// - Parameters:
    ///   - maximumAttempts: attempts of one call, the first included (at least 1).
    ///   - maximumWait: the longest single wait before a retry.
    ///   - initialBackoff: the first wait when the server gives none.
    ///   - attemptTimeout: how long one attempt may take.
    public init(
        maximumAttempts: Int = 4, maximumWait: Duration = .seconds(30), initialBackoff: Duration = .milliseconds(500),
        attemptTimeout: Duration = .seconds(35)
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.maximumWait = maximumWait
        self.initialBackoff = initialBackoff
        self.attemptTimeout = attemptTimeout
    }

    /// 4 attempts, waits of at most 30 seconds, a first backoff of half a second, 35 seconds an attempt.
    public static let standard = RetryPolicy()

    /// The wait before retry number `retry` (from 1) when the server named none.
    func backoff(before retry: Int) -> Duration {
        var wait = initialBackoff
        for _ in 1..<max(1, retry) {
            wait *= 2
            if wait >= maximumWait { return maximumWait }
        }
        return min(wait, maximumWait)
    }
}
