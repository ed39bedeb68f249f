import InkraAuth
import InkraHandlers
import InkraJSON
import InkraUsage

/// A signed-in user of the app, as a test describes them: who they are and what their Cognito
/// user carries.
///
/// From a caller, the event builders make what API Gateway passes on once the `authorizer`
/// function has let them in (``ProxyEvent``), and ``TestUserPool`` mints their tokens.
public struct Caller: Sendable, Hashable {
    /// The user: the token's `sub`.
    public var sub: String
    /// The user's `custom:subscription_tier` attribute; `nil` when they have none, so that their
    /// groups decide (`Tier.resolve(subscriptionTier:tier:groups:)`).
    public var tier: Tier?
    /// The user's Cognito groups (`premium_tier`, `free_tier`, `blocked`, …).
    public var groups: [String]
    /// The user's `custom:monthly_quota` attribute, which replaces their tier's monthly limit.
    public var quota: Int?
    /// The user's email, when they have one.
    public var email: String?

    /// Creates a caller.
    /// - Parameters:
    ///   - sub: the user (the token's `sub`).
    ///   - tier: the `custom:subscription_tier` attribute; `nil` leaves the tier to the groups
    ///     (free when they name none).
    ///   - groups: the Cognito groups.
    ///   - quota: the `custom:monthly_quota` attribute.
    ///   - email: the email.
    public init(_ sub: String, tier: Tier? = nil, groups: [String] = [], quota: Int? = nil, email: String? = nil) {
        self.sub = sub
        self.tier = tier
        self.groups = groups
        self.quota = quota
        self.email = email
    }

    /// The tier the authorizer gives the caller: the attribute, else the groups.
    package var resolvedTier: Tier {
        Tier.resolve(subscriptionTier: tier?.rawValue, tier: nil, groups: groups)
    }

    /// The caller's limits: their tier's in `limits`, with their own monthly quota when they have a
    /// positive one.
    package func limits(in limits: TierLimits = TierLimits()) -> Limits {
        let tierLimits = limits.limits(forTier: resolvedTier.rawValue)
        guard let quota, quota > 0 else { return tierLimits }
        return tierLimits.withMonthly(quota)
    }

    /// The context the `authorizer` function answers for the caller's ID token: `userId`,
    /// `email` (when they have one), `tier`, and `quota` (their own monthly quota, when they have
    /// one; never their tier's limit, which the functions hold).
    package func authorizerContext() -> JSONObject {
        var context = JSONObject()
        context["userId"] = .string(sub)
        if let email { context["email"] = .string(email) }
        context["tier"] = .string(resolvedTier.rawValue)
        if let quota, quota > 0 { context["quota"] = .number(quota) }
        return context
    }

    /// `requestContext.authorizer` of a REST API proxy event, as API Gateway fills it from the
    /// authorizer's answer: `principalId`, the context's values as strings, and
    /// `integrationLatency`.
    package func restAuthorizer() -> JSONValue {
        var section = JSONObject()
        section["principalId"] = .string(sub)
        for (key, value) in authorizerContext().pairs {
            section[key] = .string(value.scalarText ?? value.jsonString)
        }
        section["integrationLatency"] = 0
        return .object(section)
    }

    /// `requestContext.authorizer` of an HTTP API (payload 2.0) proxy event, as API Gateway fills
    /// it from a Lambda authorizer's simple response: the context under `lambda`, values as they
    /// were.
    package func httpAuthorizer() -> JSONValue {
        ["lambda": .object(authorizerContext())]
    }
}
