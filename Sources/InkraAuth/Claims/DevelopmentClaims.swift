import InkraCrypto
import InkraJSON
import InkraTime

/// The claims of a token minted for development or tests: exactly the claims Amazon Cognito puts
/// in a user pool's ID or access token when no pre token generation trigger changes them
/// ("Understanding the identity (ID) token" and "Understanding the access token" in the Cognito
/// developer guide).
///
/// - ID token: `sub`, `iss`, `aud`, `token_use` (`id`), `auth_time`, `exp`, `iat`, `jti`,
///   `origin_jti`, `event_id`, `cognito:username`, `email` and `email_verified` (when the user has
///   an email), the custom attributes the user has (`custom:subscription_tier`, `custom:tier`,
///   `custom:monthly_quota`, as strings), and `cognito:groups` when the user is in any group.
/// - Access token: `sub`, `iss`, `client_id`, `token_use` (`access`), `scope`
///   (`aws.cognito.signin.user.admin`), `auth_time`, `exp`, `iat`, `jti`, `origin_jti`,
///   `event_id`, `username`, and `cognito:groups` when the user is in any group. No `aud`, no
///   email, no custom attributes.
package struct DevelopmentClaims: Sendable, Hashable {
    /// `sub`.
    package var sub: String
    /// `token_use`: `id` or `access`.
    package var tokenUse: String
    /// The app client: `aud` in an ID token, `client_id` in an access token.
    package var clientId: String
    /// `iss`.
    package var issuer: String
    /// `iat` and `auth_time`.
    package var issuedAt: Timestamp
    /// `exp`.
    package var expiresAt: Timestamp
    /// `cognito:username` (ID token) or `username` (access token). In a pool whose users sign in
    /// with their email, as template.yaml's does, Cognito sets it to the `sub`.
    package var username: String
    /// `jti`.
    package var jti: String
    /// `origin_jti`.
    package var originJti: String
    /// `event_id`.
    package var eventId: String
    /// `email` (ID tokens only).
    package var email: String?
    /// `email_verified`, beside `email`.
    package var emailVerified = true
    /// `cognito:groups`; left out when empty, as Cognito leaves it out.
    package var groups: [String] = []
    /// `custom:subscription_tier` (ID tokens only).
    package var subscriptionTier: String?
    /// `custom:tier`, the older tier attribute the authorizer also reads (ID tokens only).
    package var customTier: String?
    /// `custom:monthly_quota` (ID tokens only), a string as Cognito writes every custom attribute.
    package var monthlyQuota: String?

    /// The scope of an access token from a user pool sign-in (no OAuth scopes requested).
    package static let signInScope = "aws.cognito.signin.user.admin"

    /// Creates claims with fresh random `jti`, `origin_jti` and `event_id`.
    package init(
        sub: String,
        tokenUse: String = TokenUse.id.rawValue,
        clientId: String,
        issuer: String,
        issuedAt: Timestamp,
        expiresAt: Timestamp
    ) {
        var generator = SystemRandomNumberGenerator()
        self.init(
            sub: sub, tokenUse: tokenUse, clientId: clientId, issuer: issuer, issuedAt: issuedAt,
            expiresAt: expiresAt, using: &generator)
    }

    /// Creates claims whose `jti`, `origin_jti` and `event_id` are UUIDs drawn from `generator`.
    package init(
        sub: String,
        tokenUse: String = TokenUse.id.rawValue,
        clientId: String,
        issuer: String,
        issuedAt: Timestamp,
        expiresAt: Timestamp,
        using generator: inout some RandomNumberGenerator
    ) {
        self.sub = sub
        self.tokenUse = tokenUse
        self.clientId = clientId
        self.issuer = issuer
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        username = sub
        jti = RandomUUID.string(using: &generator)
        originJti = RandomUUID.string(using: &generator)
        eventId = RandomUUID.string(using: &generator)
    }

    /// The payload: Cognito's claim set for ``tokenUse``.
    /// - Throws: ``AuthError/Code/unsupportedClaim`` when `tokenUse` is neither `id` nor `access`, or
    ///   when an access token is given an email or a custom attribute, which Cognito never puts there.
    package func payload() throws(AuthError) -> JSONValue {
        let issued = JSONValue.number(Int(issuedAt.timeIntervalSince1970))
        var payload: JSONObject = ["sub": .string(sub), "iss": .string(issuer)]
        switch tokenUse {
        case TokenUse.id.rawValue:
            payload["aud"] = .string(clientId)
            payload["token_use"] = "id"
        case TokenUse.access.rawValue:
            if email != nil {
                throw Self.unsupported("email", "Cognito puts the email in the ID token only")
            }
            for (claim, value) in [
                ("custom:subscription_tier", subscriptionTier), ("custom:tier", customTier),
                ("custom:monthly_quota", monthlyQuota),
            ] where value != nil {
                throw Self.unsupported(claim, Self.noCustomAttributes)
            }
            payload["client_id"] = .string(clientId)
            payload["token_use"] = "access"
            payload["scope"] = .string(Self.signInScope)
        default:
            throw AuthError(.unsupportedClaim, "token_use: it must be id or access, not \"\(tokenUse)\"")
        }
        payload["auth_time"] = issued
        payload["exp"] = .number(Int(expiresAt.timeIntervalSince1970))
        payload["iat"] = issued
        payload["jti"] = .string(jti)
        payload["origin_jti"] = .string(originJti)
        payload["event_id"] = .string(eventId)
        if tokenUse == TokenUse.id.rawValue {
            payload["cognito:username"] = .string(username)
            if let email {
                payload["email"] = .string(email)
                payload["email_verified"] = .bool(emailVerified)
            }
            if let subscriptionTier { payload["custom:subscription_tier"] = .string(subscriptionTier) }
            if let customTier { payload["custom:tier"] = .string(customTier) }
            if let monthlyQuota { payload["custom:monthly_quota"] = .string(monthlyQuota) }
        } else {
            payload["username"] = .string(username)
        }
        if !groups.isEmpty { payload["cognito:groups"] = .array(groups.map(JSONValue.string)) }
        return .object(payload)
    }
}

extension DevelopmentClaims {
    /// Why an access token carries no custom attribute.
    package static let noCustomAttributes =
        "Cognito's access tokens carry no custom attributes unless a pre token generation trigger adds them, "
        + "and template.yaml's user pool has none"

    /// An ``AuthError/Code/unsupportedClaim``: "`<claim>` cannot be in an access token: `<reason>`".
    package static func unsupported(_ claim: String, _ reason: String) -> AuthError {
        AuthError(.unsupportedClaim, "\(claim) cannot be in an access token: \(reason)")
    }
}
