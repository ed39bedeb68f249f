import Foundation
import InkraAuth
import InkraJSON
import InkraTime
import Logging
import Synchronization

/// What a successful sign-in answers (`AuthenticationResult`).
package struct AuthTokens: Sendable, Hashable {
    /// The id token.
    package var idToken: String
    /// The access token.
    package var accessToken: String
    /// The refresh token: opaque, kept by the pool only as a hash; `nil` on a refresh.
    package var refreshToken: String?
    /// Seconds the id and access tokens live.
    package var expiresIn: Int
}

extension UserPool {
    /// Issues an id and an access token (and, on a sign-in, a refresh token) for a user through a
    /// client, with Cognito's claim sets (``DevelopmentClaims``) and the user's current attributes
    /// and groups. A refresh keeps the sign-in's `auth_time` and `origin_jti`.
    func issueTokens(for user: PoolUser, client: AppClient, refreshing origin: UserPoolSnapshot.IssuedToken?)
        throws(CognitoError) -> AuthTokens
    {
        let issued = now()
        var generator = SystemRandomNumberGenerator()
        let authTime = origin?.authTime ?? issued
        let iss = issuer
        func claims(_ use: TokenUse, lifetime: TimeInterval) -> DevelopmentClaims {
            var claims = DevelopmentClaims(
                sub: user.sub, tokenUse: use.rawValue, clientId: client.id, issuer: iss, issuedAt: issued,
                expiresAt: issued.addingTimeInterval(lifetime), using: &generator)
            claims.username = user.username
            if let origin { claims.originJti = origin.originJti }
            claims.groups = settings.groups.filter { user.groups.contains($0.name) }.sorted {
                $0.precedence < $1.precedence
            }.map(\.name)
            if use == .id {
                claims.email = user.email
                claims.emailVerified = user.attributes["email_verified"] == "true"
                claims.subscriptionTier = user.attributes["custom:subscription_tier"]
                claims.monthlyQuota = user.attributes["custom:monthly_quota"]
            }
            return claims
        }
        let id = claims(.id, lifetime: client.idTokenValidity)
        var access = claims(.access, lifetime: client.accessTokenValidity)
        access.originJti = id.originJti
        access.eventId = id.eventId
        let idToken: String
        let accessToken: String
        do {
            idToken = try signer.sign(payload: Self.payload(id, authTime: authTime))
            accessToken = try signer.sign(payload: Self.payload(access, authTime: authTime))
        } catch {
            throw CognitoError("InternalErrorException", "The tokens could not be signed.", status: 500)
        }
        var refreshToken: String?
        if origin == nil {
            refreshToken = Data(Self.randomBytes(48, &generator)).base64EncodedString()
        }
        let record = UserPoolSnapshot.IssuedToken(
            username: user.username, clientID: client.id,
            expires: issued.addingTimeInterval(client.accessTokenValidity),
            authTime: authTime, originJti: id.originJti)
        try journaled { state in
            state.snapshot.accessTokens = state.snapshot.accessTokens.filter { $0.value.expires > issued }
            state.snapshot.accessTokens[Self.sha256Hex(accessToken)] = record
            if let refreshToken {
                var refresh = record
                refresh.expires = issued.addingTimeInterval(client.refreshTokenValidity)
                state.snapshot.refreshTokens[Self.sha256Hex(refreshToken)] = refresh
            }
        }
        return AuthTokens(
            idToken: idToken, accessToken: accessToken, refreshToken: refreshToken,
            expiresIn: Int(client.idTokenValidity))
    }

    /// The claims' payload with the sign-in's `auth_time` (a refresh keeps the original).
    private static func payload(_ claims: DevelopmentClaims, authTime: Timestamp) throws -> JSONValue {
        guard case .object(var object) = try claims.payload() else { return try claims.payload() }
        object["auth_time"] = .number(Int(authTime.timeIntervalSince1970))
        return .object(object)
    }
}
