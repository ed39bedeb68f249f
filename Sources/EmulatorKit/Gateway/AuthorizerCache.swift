import Foundation
import Synchronization

/// API Gateway's authorizer cache: an authorizer's answer kept per identity source (the token)
/// for a time to live, so a second request with the same token does not run the authorizer. The
/// cached policy is evaluated again for each request's resource, as API Gateway does. Failures
/// (such as `Unauthorized`) are not cached.
public final class AuthorizerCache: Sendable {
    private struct Entry {
        var answer: Invocation.Outcome
        var expires: Date
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var hits = 0
        var misses = 0
    }

    /// How long an answer is kept; zero turns caching off.
    public let timeToLive: TimeInterval
    private let now: @Sendable () -> Date
    private let state = Mutex(State())
    /// The most answers kept; the oldest are dropped past it.
    private let capacity: Int

    /// A cache.
    /// - Parameters:
    ///   - timeToLive: seconds an answer is kept (API Gateway's default is 300; 0 turns it off).
    ///   - capacity: the most tokens kept at once.
    ///   - now: the clock expiry is measured by.
    public init(timeToLive: TimeInterval = 300, capacity: Int = 10_000, now: @escaping @Sendable () -> Date) {
        self.timeToLive = timeToLive
        self.capacity = capacity
        self.now = now
    }

    /// How many requests were answered from the cache.
    public var hits: Int { state.withLock { $0.hits } }
    /// How many requests ran the authorizer.
    public var misses: Int { state.withLock { $0.misses } }

    /// The cached answer for a token, or the one `authorize` gives (kept when it succeeded).
    /// - Returns: the answer, and whether it came from the cache.
    func answer(
        for token: String, authorize: () async -> Invocation.Outcome
    ) async -> (outcome: Invocation.Outcome, cached: Bool) {
        guard timeToLive > 0 else {
            state.withLock { $0.misses += 1 }
            return (await authorize(), false)
        }
        let instant = now()
        let cached: Invocation.Outcome? = state.withLock { state in
            guard let entry = state.entries[token] else { return nil }
            guard entry.expires > instant else {
                state.entries[token] = nil
                return nil
            }
            state.hits += 1
            return entry.answer
        }
        if let cached { return (cached, true) }
        let outcome = await authorize()
        state.withLock { state in
            state.misses += 1
            guard case .success = outcome else { return }
            if state.entries.count >= capacity {
                state.entries = state.entries.filter { $0.value.expires > instant }
                if state.entries.count >= capacity,
                    let oldest = state.entries.min(by: { $0.value.expires < $1.value.expires })
                {
                    state.entries[oldest.key] = nil
                }
            }
            state.entries[token] = Entry(answer: outcome, expires: instant.addingTimeInterval(timeToLive))
        }
        return (outcome, false)
    }
}
