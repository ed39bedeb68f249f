import HTTPText
import InkraJSON
import InkraTime

/// The claims of a verified Cognito token that the functions use.
package struct CognitoClaims: Sendable, Hashable {
    /// `sub`.
    package var subject: String
    /// `email`, when `email_verified` is true (ID tokens; access tokens carry no email).
    package var email: String?
    /// `token_use`.
    package var tokenUse: String?
    /// `client_id` (access tokens).
    package var clientId: String?
    /// `aud` (id tokens), as a list.
    package var audience: [String]
    /// `iss`.
    package var issuer: String
    /// `exp`.
    package var expiresAt: Timestamp
    /// `iat`, when the token has one.
    package var issuedAt: Timestamp?
    /// `cognito:groups`.
    package var groups: [String]
    /// `custom:subscription_tier`.
    package var subscriptionTier: String?
    /// `custom:tier`.
    package var customTier: String?
    /// `custom:monthly_quota`, when it is a positive integer (number or string).
    package var monthlyQuota: Int?

    /// The tier, by ``Tier/resolve(subscriptionTier:tier:groups:)``'s precedence: the custom
    /// attributes when present, else the `premium_tier` / `free_tier` groups.
    package var tier: Tier {
        Tier.resolve(subscriptionTier: subscriptionTier, tier: customTier, groups: groups)
    }

    /// Creates claims.
    package init(
        subject: String,
        email: String? = nil,
        tokenUse: String? = nil,
        clientId: String? = nil,
        audience: [String] = [],
        issuer: String,
        expiresAt: Timestamp,
        issuedAt: Timestamp? = nil,
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
        self.issuedAt = issuedAt
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
