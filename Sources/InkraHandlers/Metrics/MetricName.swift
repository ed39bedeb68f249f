import CoreMetrics

/// The names of the metrics the functions emit (CloudWatch Embedded Metric Format lines in
/// `bootstrap`, namespace `Inkra`, dimension `function`): the one source of truth that
/// template.yaml's alarms are held to by a test.
package enum MetricName: String, Sendable, CaseIterable {
    /// The usage store failed: a caller got 503 and nothing was generated or erased
    /// (`checkUsage`, `generateQuestions`, `deleteAccount`), or a clean-up (a give-back, an
    /// answer's record, a refusal's mark) could not be written, or `repairCharges` could not run.
    case usageStoreFailure = "UsageStoreFailure"
    /// A caller's month was full (`generateQuestions`).
    case quotaExceeded = "QuotaExceeded"
    /// A caller's day or hour was full; dimension `window` (`day`, `hour`) (`generateQuestions`).
    case rateLimitHit = "RateLimitHit"
    /// A token was refused (`authorizer`).
    case authFailure = "AuthFailure"
    /// The pool's keys could not be fetched; the authorizer failed rather than answer 401.
    case authorizerKeySourceFailure = "AuthorizerKeySourceFailure"
    /// Units given back for calls charged and never answered (`repairCharges`): each one a
    /// runtime that died or a give-back that failed between charge and answer.
    case chargeRepaired = "ChargeRepaired"
    /// A sandbox started (each function, once per cold start).
    case coldStart = "ColdStart"
    /// A warm sandbox could not read `INKRA_LIMITS_PARAMETER` again, or read limits that are not
    /// valid, and kept the last good ones (each function).
    case limitsRefreshFailure = "LimitsRefreshFailure"
}

extension MetricName {
    /// Counts `count` of this metric in `factory`, the function's metrics system.
    package func increment(
        by count: Int = 1, dimensions: [(String, String)] = [], in factory: any MetricsFactory
    ) {
        Counter(label: rawValue, dimensions: dimensions, factory: factory).increment(by: Int64(count))
    }
}
