import HTTPText
import InkraAuth
import InkraJSON

/// Who is calling, as API Gateway's authorizer described them.
public struct CallerIdentity: Sendable, Hashable {
    /// The user (the token's `sub`).
    public var userID: String
    /// The user's email, when known.
    public var email: String?
    /// The user's tier.
    public var tier: Tier
    /// The user's own monthly limit, when their token or context names a positive one.
    public var monthlyQuota: Int?
    /// The user's Cognito groups, when known.
    public var groups: [String]

    /// Creates an identity.
    public init(
        userID: String, email: String? = nil, tier: Tier = .free, monthlyQuota: Int? = nil, groups: [String] = []
    ) {
        self.userID = userID
        self.email = email
        self.tier = tier
        self.monthlyQuota = monthlyQuota
        self.groups = groups
    }

    /// Reads the caller from `requestContext.authorizer`, in whichever of API Gateway's four shapes
    /// it comes: REST Lambda authorizer context, REST Cognito authorizer `claims`, HTTP API Lambda
    /// authorizer `lambda`, HTTP API JWT authorizer `jwt.claims`. Values may be strings.
    /// - Returns: `nil` when no shape names a user.
    public init?(authorizer: JSONObject?) {
        guard let authorizer else { return nil }
        if let lambda = authorizer["lambda"]?.object, let identity = Self(context: lambda) {
            self = identity
        } else if let claims = authorizer["jwt"]?["claims"]?.object, let identity = Self(claims: claims) {
            self = identity
        } else if let claims = authorizer["claims"]?.object, let identity = Self(claims: claims) {
            self = identity
        } else if let identity = Self(context: authorizer) {
            self = identity
        } else {
            return nil
        }
    }

    /// A Lambda authorizer's context: `userId` or `principalId`, `email`, `tier`, `quota`, and
    /// `groups` when a context carries them. The tier is the context's `tier` (the authorizer's
    /// resolved one), else the groups', as ``Tier/resolve(subscriptionTier:tier:groups:)`` orders them.
    private init?(context: JSONObject) {
        guard
            let user = Self.nonEmpty(context["userId"]?.scalarText) ?? Self.nonEmpty(context["principalId"]?.scalarText)
        else { return nil }
        let tierName = Self.nonEmpty(context["tier"]?.scalarText)
        let groups = Self.groups(context["groups"])
        self.init(
            userID: user,
            email: Self.nonEmpty(context["email"]?.scalarText),
            tier: Tier.resolve(subscriptionTier: tierName, tier: nil, groups: groups),
            monthlyQuota: Self.positiveInteger(context["quota"]),
            groups: groups
        )
    }

    /// Cognito claims, as a REST Cognito authorizer or an HTTP API JWT authorizer passes them: the
    /// tier from the custom attributes (ID tokens), else from `cognito:groups` (which access tokens
    /// carry too), as ``Tier/resolve(subscriptionTier:tier:groups:)`` orders them.
    private init?(claims: JSONObject) {
        guard let user = Self.nonEmpty(claims["sub"]?.scalarText) else { return nil }
        let groups = Self.groups(claims["cognito:groups"])
        self.init(
            userID: user,
            email: Self.nonEmpty(claims["email"]?.scalarText),
            tier: Tier.resolve(
                subscriptionTier: Self.nonEmpty(claims["custom:subscription_tier"]?.scalarText),
                tier: Self.nonEmpty(claims["custom:tier"]?.scalarText),
                groups: groups
            ),
            monthlyQuota: Self.positiveInteger(claims["custom:monthly_quota"]),
            groups: groups
        )
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    /// A positive integer from a number or a string holding one.
    static func positiveInteger(_ value: JSONValue?) -> Int? {
        guard let value else { return nil }
        let number: Int?
        switch value {
        case .number: number = value.int
        case .string(let text): number = Int(text.trimmingSpacesAndTabs())
        default: number = nil
        }
        guard let number, number > 0 else { return nil }
        return number
    }

    /// Groups as API Gateway passes them: a JSON array, `"[a b]"` (HTTP API JWT authorizer),
    /// `"a,b"` (REST Cognito authorizer) or a JSON array inside a string.
    static func groups(_ value: JSONValue?) -> [String] {
        switch value {
        case .array(let elements)?:
            return elements.compactMap(\.scalarText)
        case .string(let text)?:
            var trimmed = String(text.trimmingSpacesAndTabs())
            if let parsed = try? JSONParser.parse(trimmed), let elements = parsed.array {
                return elements.compactMap(\.scalarText)
            }
            if trimmed.hasPrefix("[") && trimmed.hasSuffix("]") { trimmed = String(trimmed.dropFirst().dropLast()) }
            return trimmed.split { $0 == "," || $0 == " " }.map(String.init).filter { !$0.isEmpty }
        default:
            return []
        }
    }
}
