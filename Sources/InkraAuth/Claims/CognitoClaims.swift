import HTTPText
import InkraJSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The claims of a verified Cognito token that the functions use.
public struct CognitoClaims: Sendable, Hashable {
    /// `sub`.
    public var subject: String
    /// `email`.
    public var email: String?
    /// `token_use`.
    public var tokenUse: String?
    /// `client_id` (access tokens).
    public var clientId: String?
    /// `aud` (id tokens), as a list.
    public var audience: [String]
    /// `iss`.
    public var issuer: String
    /// `exp`.
    public var expiresAt: Date
    /// `cognito:groups`.
    public var groups: [String]
    /// `custom:subscription_tier`.
    public var subscriptionTier: String?
    /// `custom:tier`.
    public var customTier: String?
    /// `custom:monthly_quota`, when it is a positive integer (number or string).
    public var monthlyQuota: Int?

    /// The tier, by ``Tier/resolve(subscriptionTier:tier:groups:)``'s precedence: the custom
    /// attributes when present, else the `premium_tier` / `free_tier` groups.
    public var tier: Tier {
        Tier.resolve(subscriptionTier: subscriptionTier, tier: customTier, groups: groups)
    }

    /// Creates claims.
    public init(
        subject: String,
        email: String? = nil,
        tokenUse: String? = nil,
        clientId: String? = nil,
        audience: [String] = [],
        issuer: String,
        expiresAt: Date,
        groups: [String] = [],
        subscriptionTier: String? = nil,
        customTier: String? = nil,
        monthlyQuota: Int? = nil
    ) {
        self.subject = subject
        self.email = email
        self.tokenUse = tokenUse
        self.clientId = clientId
        self.audience = audience
        self.issuer = issuer
        self.expiresAt = expiresAt
        self.groups = groups
        self.subscriptionTier = subscriptionTier
        self.customTier = customTier
        self.monthlyQuota = monthlyQuota
    }

    /// A positive integer from a JSON number or a string holding one.
    package static func positiveInteger(_ value: JSONValue?) -> Int? {
        let number: Int?
        switch value {
        case .number?: number = value?.int
        case .string(let text)?: number = Int(text.trimmingSpacesAndTabs())
        default: number = nil
        }
        guard let number, number > 0 else { return nil }
        return number
    }
}
