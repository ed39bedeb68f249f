import Foundation
import InkraAuth

/// Mints tokens with the development key, shaped like Cognito's.
public enum DevelopmentTokens {
    /// What a development token says.
    public struct Claims: Sendable, Hashable {
        public var sub: String
        public var email: String?
        public var tier: String?
        public var groups: [String]?
        public var quota: Int?
        public var tokenUse: String
        public var clientID: String
        public var issuer: String
        public var expiresIn: TimeInterval

        /// Creates claims; the defaults are the development pool's.
        public init(
            sub: String,
            email: String? = nil,
            tier: String? = nil,
            groups: [String]? = nil,
            quota: Int? = nil,
            tokenUse: String = "access",
            clientID: String = DevelopmentKey.clientID,
            issuer: String = DevelopmentKey.issuer,
            expiresIn: TimeInterval = 3600
        ) {
            self.sub = sub
            self.email = email
            self.tier = tier
            self.groups = groups
            self.quota = quota
            self.tokenUse = tokenUse
            self.clientID = clientID
            self.issuer = issuer
            self.expiresIn = expiresIn
        }
    }

    /// A signed token, issued at `instant`.
    public static func mint(with key: DevelopmentKey, claims: Claims, at instant: Date) throws -> String {
        var development = DevelopmentClaims(
            sub: claims.sub,
            tokenUse: claims.tokenUse,
            clientId: claims.tokenUse == "access" ? claims.clientID : nil,
            audience: claims.tokenUse == "id" ? claims.clientID : nil,
            issuer: claims.issuer,
            issuedAt: instant,
            expiresAt: instant.addingTimeInterval(claims.expiresIn)
        )
        development.email = claims.email
        development.groups = claims.groups
        development.subscriptionTier = claims.tier
        development.monthlyQuota = claims.quota.map(String.init)
        return try key.signer.sign(development)
    }
}
