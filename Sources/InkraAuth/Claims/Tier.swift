/// A subscription tier.
public enum Tier: String, Sendable, Hashable, CaseIterable {
    case free
    case premium

    /// SPEC §2: `custom:subscription_tier`, else `custom:tier`, else premium when the user is in the
    /// `premium_tier` group, else free; an unknown name counts as free.
    public static func resolve(subscriptionTier: String?, tier: String?, groups: [String]) -> Tier {
        if let named = subscriptionTier ?? tier {
            return Tier(rawValue: named.lowercased()) ?? .free
        }
        return groups.contains("premium_tier") ? .premium : .free
    }
}
