import Foundation
import InkraTime
import Synchronization

/// API Gateway's authorizer cache: an authorizer's answer kept per identity source (the token)
/// for a time to live, so a second request with the same token does not run the authorizer. The
/// cached policy is evaluated again for each request's resource, as API Gateway does. Failures
/// (such as `Unauthorized`) are not cached.
package final class AuthorizerCache: Sendable {
    private struct Entry {
        var answer: Invocation.Outcome
        /// Why the authorizer denied, when it did (a Deny is an answer, and cached as one).
        var refusal: String?
        var expires: Timestamp
        /// What API Gateway made of the answer, by resource: the policy is the same for every
        /// request the entry serves, so each resource's evaluation is kept with it.
        var decisions: [GatewayChain.DecisionKey: GatewayChain.Decision] = [:]
    }

    /// The most resources whose decisions one entry keeps.
    private static let decisionsPerEntry = 64

    private struct State {
        var entries: [String: Entry] = [:]
        var hits = 0
        var misses = 0
    }

    /// template.yaml's `ReauthorizeEvery` (CloudFormation's `AuthorizerResultTtlInSeconds`):
    /// the time to live `serve` and `replay` use unless told otherwise.
    package static let templateTimeToLive: TimeInterval = 300

    /// How long an answer is kept; zero turns caching off.
    package let timeToLive: TimeInterval
    private let now: @Sendable () -> Timestamp
    private let state = Mutex(State())
    /// The most answers kept; the oldest are dropped past it.
    private let capacity: Int

    /// A cache.
    /// - Parameters:
    ///   - timeToLive: seconds an answer is kept (API Gateway's default is 300; 0 turns it off).
    ///   - capacity: the most tokens kept at once.
    ///   - now: the clock expiry is measured by.
    package init(timeToLive: TimeInterval = 300, capacity: Int = 10_000, now: @escaping @Sendable () -> Timestamp) {
        self.timeToLive = timeToLive
        self.capacity = capacity
        self.now = now
    }

    /// How many requests were answered from the cache.
    package var hits: Int { state.withLock { $0.hits } }
    /// How many requests ran the authorizer.
    package var misses: Int { state.withLock { $0.misses } }

    /// The cached answer for a token, or the one `authorize` gives (kept when it succeeded),
    /// with what `decide` makes of it for a resource and payload version — evaluated once per
    /// resource while the answer stays cached.
    /// - Parameters:
    ///   - token: the cache's key: the identity source (the `Authorization` header's value) and the
    ///     API whose authorizer it is for (each API's authorizer caches its own answers).
    ///   - time: the request's instant, expiry is measured at (`replay`: the recorded one);
    ///     the cache's clock when `nil`.
    ///   - authorize: runs the authorizer: its answer, and why it refused or denied.
    /// - Returns: the answer, why it refused or denied (kept with a cached answer), the decision,
    ///   and whether the answer came from the cache.
    func answer(
        for token: String,
        at time: Timestamp? = nil,
        decisionKey: GatewayChain.DecisionKey,
        authorize: () async -> (Invocation.Outcome, refusal: String?),
        decide: (Invocation.Outcome) -> GatewayChain.Decision
    ) async -> (outcome: Invocation.Outcome, refusal: String?, decision: GatewayChain.Decision, cached: Bool) {
        guard timeToLive > 0 else {
            state.withLock { $0.misses += 1 }
            let (outcome, refusal) = await authorize()
            return (outcome, refusal, decide(outcome), false)
        }
        let instant = time ?? now()
        let cached: (Entry, GatewayChain.Decision?)? = state.withLock { state in
            guard let entry = state.entries[token] else { return nil }
            guard entry.expires > instant else {
                state.entries[token] = nil
                return nil
            }
            state.hits += 1
            return (entry, entry.decisions[decisionKey])
        }
        if let (entry, known) = cached {
            if let known { return (entry.answer, entry.refusal, known, true) }
            let decision = decide(entry.answer)
            state.withLock { state in
                // Kept only with the entry it was made from, not a newer answer for the token.
                guard let current = state.entries[token], current.expires == entry.expires,
                    current.decisions.count < Self.decisionsPerEntry
                else { return }
                state.entries[token]?.decisions[decisionKey] = decision
            }
            return (entry.answer, entry.refusal, decision, true)
        }
        let (outcome, refusal) = await authorize()
        let decision = decide(outcome)
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
            state.entries[token] = Entry(
                answer: outcome, refusal: refusal, expires: instant.addingTimeInterval(timeToLive),
                decisions: [decisionKey: decision])
        }
        return (outcome, refusal, decision, false)
    }
}
