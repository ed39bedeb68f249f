import InkraTime
import Synchronization

/// The stage's throttling, as API Gateway applies template.yaml's `MethodSettings` (`/*`, `*`):
/// a token bucket per method of the stage (here, per route), `burst` tokens deep and refilled at
/// `rate` a second, one token per request, checked before the authorizer. A request that finds
/// the bucket empty gets the `THROTTLED` gateway response (429).
/// - https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-request-throttling.html
package final class StageThrottle: Sendable {
    /// A method's limits.
    package struct Limits: Sendable, Hashable {
        /// Requests a second, steadily (`ThrottlingRateLimit`).
        package var rate: Double
        /// The bucket's depth: requests at once after a quiet spell (`ThrottlingBurstLimit`).
        package var burst: Int

        /// template.yaml's defaults (its `ThrottlingRateLimit` and `ThrottlingBurstLimit` parameters).
        package static let template = Limits(rate: 50, burst: 100)

        package init(rate: Double, burst: Int) {
            self.rate = rate
            self.burst = burst
        }
    }

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    /// The limits every method gets.
    package let limits: Limits
    private let now: @Sendable () -> ContinuousClock.Instant
    private let buckets = Mutex<[String: Bucket]>([:])

    /// A throttle with these limits for each method, on `now` (the real monotonic clock by default).
    package init(
        _ limits: Limits, now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.limits = limits
        self.now = now
    }

    /// Takes a token from the method's bucket; false when there is none (the request is throttled).
    package func admits(method: String, resource: String) -> Bool {
        let instant = now()
        let capacity = Double(limits.burst)
        return buckets.withLock { buckets in
            var bucket = buckets["\(method) \(resource)"] ?? Bucket(tokens: capacity, updated: instant)
            let elapsed = bucket.updated.duration(to: instant)
            bucket.tokens = min(capacity, bucket.tokens + max(0, elapsed.seconds) * limits.rate)
            bucket.updated = instant
            let admitted = bucket.tokens >= 1
            if admitted { bucket.tokens -= 1 }
            buckets["\(method) \(resource)"] = bucket
            return admitted
        }
    }
}
