import Foundation
import InkraAuth
import InkraTime

/// Mints tokens with the development key, carrying exactly the claims Cognito puts in an ID or an
/// access token of template.yaml's user pool (see ``DevelopmentClaims``).
package enum DevelopmentTokens {
    /// What a development token says.
    package struct Claims: Sendable, Hashable {
        package var sub: String
        /// The user's email (ID tokens only); `<sub>@example.com` when not given, since
        /// template.yaml's pool requires an email of every user.
        package var email: String?
        /// `custom:subscription_tier` in an ID token; in an access token, which carries no custom
        /// attributes, the `premium_tier` or `free_tier` group.
        package var tier: String?
        package var groups: [String]?
        /// `custom:monthly_quota` (ID tokens only).
        package var quota: Int?
        /// `id` or `access`.
        package var tokenUse: String
        package var clientID: String
        package var issuer: String
        package var expiresIn: TimeInterval

        /// Creates claims; the defaults are the development pool's, and the token use template.yaml
        /// deploys.
        package init(
            sub: String,
            email: String? = nil,
            tier: String? = nil,
            groups: [String]? = nil,
            quota: Int? = nil,
            tokenUse: String = EmulatorOptions.defaultTokenUse.rawValue,
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

        /// Checks that Cognito could issue such a token.
        /// - Throws: ``EmulatorError`` naming the flag and saying why: an access token has no room
        ///   for an email or a quota, and its tier can only be a group (so only `free` or `premium`).
        package func check() throws(EmulatorError) {
            if let quota, quota <= 0 { throw EmulatorError("--quota must be a positive integer, not \(quota)") }
            switch tokenUse {
            case TokenUse.id.rawValue:
                return
            case TokenUse.access.rawValue:
                if quota != nil {
                    throw EmulatorError(
                        "--quota cannot go in an access token: custom:monthly_quota is a custom attribute; "
                            + DevelopmentClaims.noCustomAttributes
                            + ". Mint an id token (--token-use id)")
                }
                if email != nil {
                    throw EmulatorError(
                        "--email cannot go in an access token: Cognito puts the email in the id token only. "
                            + "Mint an id token (--token-use id)")
                }
                if let tier, Tier(rawValue: tier.lowercased()) == nil {
                    throw EmulatorError(
                        "--tier \(tier) cannot go in an access token: there the tier is the premium_tier or "
                            + "free_tier group (" + DevelopmentClaims.noCustomAttributes
                            + "), so it must be premium or free")
                }
            default:
                throw EmulatorError("--token-use must be id or access, not \"\(tokenUse)\"")
            }
        }

        /// The token's claims, issued at `instant`, with `jti`, `origin_jti` and `event_id` drawn
        /// from `generator`.
        /// - Throws: ``EmulatorError`` as ``check()`` does.
        package func developmentClaims(
            at instant: Timestamp, using generator: inout some RandomNumberGenerator
        ) throws(EmulatorError) -> DevelopmentClaims {
            try check()
            var claims = DevelopmentClaims(
                sub: sub, tokenUse: tokenUse, clientId: clientID, issuer: issuer, issuedAt: instant,
                expiresAt: instant.addingTimeInterval(expiresIn), using: &generator)
            var groups = self.groups ?? []
            if tokenUse == TokenUse.id.rawValue {
                claims.email = email ?? "\(sub)@example.com"
                claims.subscriptionTier = tier
                claims.monthlyQuota = quota.map(String.init)
            } else if let tier {
                let group = Tier(rawValue: tier.lowercased()) == .premium ? Tier.premiumGroup : Tier.freeGroup
                if !groups.contains(group) { groups.append(group) }
            }
            claims.groups = groups
            return claims
        }
    }

    /// A signed token, issued at `instant`.
    /// - Throws: ``EmulatorError`` when Cognito could not issue such a token (see
    ///   ``Claims/check()``), or when signing fails.
    package static func mint(with key: DevelopmentKey, claims: Claims, at instant: Timestamp) throws -> String {
        var generator = SystemRandomNumberGenerator()
        return try mint(with: key, claims: claims, at: instant, using: &generator)
    }

    /// A signed token, issued at `instant`, its identifiers drawn from `generator`.
    /// - Throws: as ``mint(with:claims:at:)``.
    package static func mint(
        with key: DevelopmentKey, claims: Claims, at instant: Timestamp,
        using generator: inout some RandomNumberGenerator
    ) throws -> String {
        try key.signer.sign(try claims.developmentClaims(at: instant, using: &generator))
    }
}
