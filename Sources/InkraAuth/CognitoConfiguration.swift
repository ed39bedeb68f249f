#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which tokens the authorizer accepts. template.yaml deploys `id` (`INKRA_TOKEN_USE`): the app sends
/// its ID token, the one that carries `custom:subscription_tier` and `custom:monthly_quota`.
public enum TokenUse: String, Sendable, Hashable, CaseIterable {
    /// Access tokens (`token_use: access`, checked against `client_id`).
    case access
    /// ID tokens (`token_use: id`, checked against `aud`).
    case id
    /// Either.
    case any
}

/// The user pool tokens must come from, and how strictly they are checked.
public struct CognitoConfiguration: Sendable, Hashable {
    /// `https://cognito-idp.{region}.amazonaws.com/{userPoolId}`.
    public var issuer: String
    /// Accepted app client ids; empty skips the client check.
    public var clientIds: [String]
    /// Accepted token use; ``TokenUse/id`` unless another is given, as template.yaml deploys.
    public var tokenUse: TokenUse
    /// Seconds of tolerance on `exp`, `nbf` and `iat`.
    public var clockTolerance: TimeInterval
    /// Members of this Cognito group are denied.
    public var blockedGroup: String

    /// A configuration for a Cognito user pool.
    public init(
        region: String,
        userPoolId: String,
        clientIds: [String] = [],
        tokenUse: TokenUse = .id,
        clockTolerance: TimeInterval = 0,
        blockedGroup: String = "blocked"
    ) {
        self.init(
            issuer: "https://cognito-idp.\(region).amazonaws.com/\(userPoolId)",
            clientIds: clientIds,
            tokenUse: tokenUse,
            clockTolerance: clockTolerance,
            blockedGroup: blockedGroup
        )
    }

    /// A configuration for an issuer URL.
    public init(
        issuer: String,
        clientIds: [String] = [],
        tokenUse: TokenUse = .id,
        clockTolerance: TimeInterval = 0,
        blockedGroup: String = "blocked"
    ) {
        self.issuer = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        self.clientIds = clientIds
        self.tokenUse = tokenUse
        self.clockTolerance = clockTolerance
        self.blockedGroup = blockedGroup
    }

    /// The region, when the issuer is a Cognito URL.
    public var region: String? {
        guard let host = URL(string: issuer)?.host, host.hasPrefix("cognito-idp.") else { return nil }
        return host.split(separator: ".").dropFirst().first.map(String.init)
    }

    /// Where the pool publishes its keys: `<issuer>/.well-known/jwks.json`.
    public var jwksURL: URL {
        URL(string: issuer + "/.well-known/jwks.json") ?? URL(fileURLWithPath: "/invalid-issuer")
    }
}
