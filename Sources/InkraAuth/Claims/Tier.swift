/// A subscription tier.
public enum Tier: String, Sendable, Hashable, CaseIterable {
    case free
    case premium

    /// The Cognito group of premium users (template.yaml's `PremiumTierGroup`).
    package static let premiumGroup = "premium_tier"
    /// The Cognito group of free users (template.yaml's `FreeTierGroup`).
    package static let freeGroup = "free_tier"

    /// The caller's tier, from the first of these that the token carries (docs/limits.md):
    ///
    /// 1. `custom:subscription_tier`: `premium` (in any case) is premium, any other value free. Only
    ///    ID tokens carry custom attributes (template.yaml has no pre token generation trigger to add
    ///    them to access tokens), and the app may read but never write them.
    /// 2. `custom:tier`, the attribute's older name, read the same way.
    /// 3. `cognito:groups`, which ID and access tokens both carry: `premium_tier` is premium, even
    ///    beside `free_tier` (a user moved up before being taken out of the free group keeps what
    ///    they paid for); `free_tier` is free.
    /// 4. Otherwise free.
    ///
    /// An attribute, when present, decides even when groups say otherwise: it is the one the backend
    /// sets per user. The `blocked` group is not a tier; the authorizer denies its members.
    /// - Parameters:
    ///   - subscriptionTier: `custom:subscription_tier`, `nil` when absent or empty.
    ///   - tier: `custom:tier`, `nil` when absent or empty.
    ///   - groups: `cognito:groups`.
    package static func resolve(subscriptionTier: String?, tier: String?, groups: [String]) -> Tier {
        if let named = subscriptionTier ?? tier {
            return Tier(rawValue: named.lowercased()) ?? .free
        }
        if groups.contains(premiumGroup) { return .premium }
        if groups.contains(freeGroup) { return .free }
        return .free
    }
}
