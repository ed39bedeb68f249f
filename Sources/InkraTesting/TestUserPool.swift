import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTime
import InkraUsage

/// A Cognito user pool for authorizer tests: a signing key generated when the pool is made (never
/// one from a file), its JWKS, and tokens carrying exactly the claims Cognito puts in the pool's ID
/// and access tokens.
///
/// ```swift
/// let pool = try TestUserPool()
/// let authorizer = pool.authorizer(now: clock.closure)
/// let token = try pool.token(for: Caller("ada", tier: .premium), at: clock.now)
/// let answer = try AuthorizerResult(await authorizer.handle(AuthorizerEvent.token("Bearer \(token)"), context: clock.context))
/// #expect(answer.context["tier"] == "premium")
/// ```
///
/// Making a pool generates a 2048-bit RSA key, which takes a moment in a debug build: share one
/// pool between a module's tests (`let pool = try! TestUserPool()` at file scope).
public struct TestUserPool: Sendable {
    /// The pool's issuer: `https://cognito-idp.<region>.amazonaws.com/<pool id>`, or
    /// `https://issuer-cognito-idp.<region>.amazonaws.com/<pool id>` for a pool whose
    /// `IssuerConfiguration` is `UPDATED`.
    public let issuer: String
    /// The app client the tokens are for (`aud` of an ID token, `client_id` of an access token).
    public let clientID: String
    /// The pool's signing key (development tokens are signed only by the package's own code).
    package let signer: TokenSigner

    /// A pool with a freshly generated signing key.
    /// - Parameters:
    ///   - poolID: the pool's id, whose prefix is its region.
    ///   - clientID: the app client the tokens are for.
    ///   - keyID: the signing key's `kid`.
    ///   - issuerForm: the pool's `IssuerConfiguration`, which sets the issuer of its tokens.
    /// - Throws: When the key cannot be generated.
    public init(
        poolID: String = "us-east-1_InkraTest",
        clientID: String = "inkra-test-client",
        keyID: String = "inkra-test-key",
        issuerForm: IssuerForm = .original
    ) throws {
        let region = poolID.split(separator: "_").first.map(String.init) ?? "us-east-1"
        issuer = issuerForm.issuer(region: region, userPoolId: poolID)
        self.clientID = clientID
        signer = try TokenSigner.generate(kid: keyID)
    }

    /// The pool's public keys as Cognito publishes them (`/.well-known/jwks.json`).
    public var jwks: [UInt8] { signer.jwks }

    /// The claims of the caller's token, issued at `instant`, before signing, as the token's JSON
    /// payload: change them and ``sign(_:)`` them to make an expired, foreign or odd token.
    ///
    /// An ID token carries the caller's email, `custom:subscription_tier` (their ``Caller/tier``),
    /// `custom:monthly_quota` and groups. An access token carries no email and no custom
    /// attribute, as Cognito's do not: a tier becomes the `premium_tier` or `free_tier` group.
    /// - Parameters:
    ///   - caller: the user.
    ///   - tokenUse: `id` (what the app sends, and the authorizer's default) or `access`.
    ///   - instant: `iat` and `auth_time`.
    ///   - lifetime: from `iat` to `exp`; Cognito's default is an hour.
    /// - Throws: ``TestFailure`` naming the claim Cognito's token would not carry: a quota in an
    ///   access token (only a custom attribute can carry it), or `tokenUse` `.any`.
    public func claims(
        for caller: Caller, tokenUse: TokenUse = .id, at instant: Timestamp, lifetime: Duration = .seconds(3600)
    ) throws(TestFailure) -> JSONValue {
        do {
            return try developmentClaims(for: caller, tokenUse: tokenUse, at: instant, lifetime: lifetime).payload()
        } catch {
            throw TestFailure(error.message)
        }
    }

    private func developmentClaims(
        for caller: Caller, tokenUse: TokenUse, at instant: Timestamp, lifetime: Duration
    ) throws(AuthError) -> DevelopmentClaims {
        var claims = DevelopmentClaims(
            sub: caller.sub, tokenUse: tokenUse.rawValue, clientId: clientID, issuer: issuer, issuedAt: instant,
            expiresAt: instant.addingTimeInterval(TimeInterval(lifetime.components.seconds)))
        var groups = caller.groups
        switch tokenUse {
        case .id:
            claims.email = caller.email
            claims.subscriptionTier = caller.tier?.rawValue
            claims.monthlyQuota = caller.quota.map(String.init)
        case .access:
            if caller.quota != nil {
                throw DevelopmentClaims.unsupported("custom:monthly_quota", DevelopmentClaims.noCustomAttributes)
            }
            if let tier = caller.tier {
                let group = tier == .premium ? Tier.premiumGroup : Tier.freeGroup
                if !groups.contains(group) { groups.append(group) }
            }
        case .any:
            throw AuthError(.unsupportedClaim, "token_use: a token is either id or access, not any")
        }
        claims.groups = groups
        return claims
    }

    /// A signed token for the caller, issued at `instant` (see ``claims(for:tokenUse:at:lifetime:)``).
    /// - Throws: As ``claims(for:tokenUse:at:lifetime:)``, or when signing fails.
    public func token(
        for caller: Caller, tokenUse: TokenUse = .id, at instant: Timestamp, lifetime: Duration = .seconds(3600)
    ) throws -> String {
        try sign(claims(for: caller, tokenUse: tokenUse, at: instant, lifetime: lifetime))
    }

    /// Signs a token's payload (from ``claims(for:tokenUse:at:lifetime:)``, changed or not) with
    /// the pool's key, RS256 under its `kid`.
    /// - Throws: When signing fails.
    public func sign(_ claims: JSONValue) throws -> String {
        try signer.sign(payload: claims)
    }

    /// A verifier that trusts this pool's key, for tokens of its app client, with the deployed
    /// authorizer's default tolerance of 5 seconds on `exp`, `nbf` and `iat` (`INKRA_CLOCK_SKEW`).
    /// - Parameters:
    ///   - tokenUse: the tokens accepted (`id`, as template.yaml deploys).
    ///   - now: the clock `exp` is checked against.
    public func verifier(tokenUse: TokenUse = .id, now: @escaping @Sendable () -> Timestamp) -> TokenVerifier {
        let configuration = CognitoConfiguration(issuer: issuer, clientIds: [clientID], tokenUse: tokenUse)
        // The JWKS was made from the pool's own key, so reading it back cannot fail.
        let keys = try! JWKSKeySource(jwks: jwks)
        return TokenVerifier(configuration: configuration, keys: keys, now: now)
    }

    /// The `authorizer` function, trusting this pool.
    /// - Parameters:
    ///   - tokenUse: the tokens accepted (`id`, as template.yaml deploys).
    ///   - simpleResponses: answer HTTP API payload 2.0 events with `{"isAuthorized":…}`.
    ///   - now: the verifier's own clock; the authorizer checks `exp` against its invocation
    ///     context's time (`handle(_:context:)`).
    public func authorizer(
        tokenUse: TokenUse = .id,
        simpleResponses: Bool = true,
        now: @escaping @Sendable () -> Timestamp
    ) -> Authorizer {
        Authorizer(
            verifier: verifier(tokenUse: tokenUse, now: now), simpleResponses: simpleResponses)
    }
}
