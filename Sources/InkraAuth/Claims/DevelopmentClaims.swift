import InkraJSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The claims of a token minted for development or tests, shaped like a Cognito token's.
public struct DevelopmentClaims: Sendable, Hashable {
    public var sub: String
    public var tokenUse: String
    public var clientId: String?
    public var audience: String?
    public var issuer: String
    public var issuedAt: Date
    public var expiresAt: Date
    public var notBefore: Date?
    public var email: String?
    public var groups: [String]?
    /// `custom:subscription_tier`.
    public var subscriptionTier: String?
    /// `custom:tier`.
    public var customTier: String?
    /// `custom:monthly_quota`, a string as Cognito sends custom attributes.
    public var monthlyQuota: String?

    /// Creates claims.
    public init(
        sub: String,
        tokenUse: String = "access",
        clientId: String? = nil,
        audience: String? = nil,
        issuer: String,
        issuedAt: Date,
        expiresAt: Date
    ) {
        self.sub = sub
        self.tokenUse = tokenUse
        self.clientId = clientId
        self.audience = audience
        self.issuer = issuer
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }

    /// The payload's JSON.
    public var json: JSONValue {
        var payload: JSONObject = [
            "sub": .string(sub),
            "iss": .string(issuer),
            "token_use": .string(tokenUse),
            "auth_time": .number(Int(issuedAt.timeIntervalSince1970)),
            "iat": .number(Int(issuedAt.timeIntervalSince1970)),
            "exp": .number(Int(expiresAt.timeIntervalSince1970)),
        ]
        if let clientId { payload["client_id"] = .string(clientId) }
        if let audience { payload["aud"] = .string(audience) }
        if let notBefore { payload["nbf"] = .number(Int(notBefore.timeIntervalSince1970)) }
        if let email { payload["email"] = .string(email) }
        if let groups { payload["cognito:groups"] = .array(groups.map(JSONValue.string)) }
        if let subscriptionTier { payload["custom:subscription_tier"] = .string(subscriptionTier) }
        if let customTier { payload["custom:tier"] = .string(customTier) }
        if let monthlyQuota { payload["custom:monthly_quota"] = .string(monthlyQuota) }
        payload["username"] = .string(sub)
        return .object(payload)
    }
}
