import HTTPText

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

/// The form of a user pool's issuer URL: Cognito's `IssuerConfiguration` (API reference,
/// `IssuerConfigurationType`), which says what `iss` the pool writes into its tokens and where it
/// publishes its keys (`<issuer>/.well-known/jwks.json`).
public enum IssuerForm: String, Sendable, Hashable, CaseIterable {
    /// `https://cognito-idp.<region>.amazonaws.com/<userPoolId>` (`amazonaws.com.cn` in the China
    /// Regions: the region's partition's DNS suffix, `AWSPartition`).
    case original = "ORIGINAL"
    /// `https://issuer-cognito-idp.<region>.amazonaws.com/<userPoolId>`, where the region is the
    /// pool's primary one; AWS recommends it for every pool, replicated or not.
    case updated = "UPDATED"

    /// The issuer URL of `userPoolId` in `region` in this form.
    package func issuer(region: String, userPoolId: String) -> String {
        switch self {
        case .original: "https://\(AWSPartition.host("cognito-idp", region: region))/\(userPoolId)"
        case .updated: "https://\(AWSPartition.host("issuer-cognito-idp", region: region))/\(userPoolId)"
        }
    }

    /// The form of a Cognito issuer URL, or `nil` for any other issuer (a local pool's).
    package init?(issuer: String) {
        guard let host = HTTPURL(string: issuer)?.host,
            AWSPartition.allSuffixes.contains(where: { host.hasSuffix(".\($0)") })
        else { return nil }
        if host.hasPrefix("cognito-idp.") {
            self = .original
        } else if host.hasPrefix("issuer-cognito-idp.") {
            self = .updated
        } else {
            return nil
        }
    }
}

/// The user pool tokens must come from, and how strictly they are checked.
package struct CognitoConfiguration: Sendable, Hashable {
    /// The pool's issuer, which `iss` must equal exactly: `https://cognito-idp.{region}.amazonaws.com/{userPoolId}`
    /// or `https://issuer-cognito-idp.{region}.amazonaws.com/{userPoolId}` (``IssuerForm``).
    package var issuer: String
    /// Accepted app client ids; empty skips the client check.
    package var clientIds: [String]
    /// Accepted token use; ``TokenUse/id`` unless another is given, as template.yaml deploys.
    package var tokenUse: TokenUse
    /// Seconds of tolerance on `exp`, `nbf` and `iat`; ``defaultClockTolerance`` unless set.
    package var clockTolerance: Double
    /// Members of this Cognito group are denied.
    package var blockedGroup: String

    /// A configuration for a Cognito user pool.
    /// - Parameters:
    ///   - region: the pool's (primary) region.
    ///   - userPoolId: the pool's id.
    ///   - issuerForm: the pool's `IssuerConfiguration`, which sets the issuer tokens carry and
    ///     where the keys are fetched from.
    ///   - clientIds: accepted app client ids; empty skips the client check.
    ///   - tokenUse: accepted token use.
    ///   - clockTolerance: seconds of tolerance on `exp`, `nbf` and `iat`.
    ///   - blockedGroup: members of this Cognito group are denied.
    package init(
        region: String,
        userPoolId: String,
        issuerForm: IssuerForm = .original,
        clientIds: [String] = [],
        tokenUse: TokenUse = .id,
        clockTolerance: Double = CognitoConfiguration.defaultClockTolerance,
        blockedGroup: String = "blocked"
    ) {
        self.init(
            issuer: issuerForm.issuer(region: region, userPoolId: userPoolId),
            clientIds: clientIds,
            tokenUse: tokenUse,
            clockTolerance: clockTolerance,
            blockedGroup: blockedGroup
        )
    }

    /// A configuration for an issuer URL.
    package init(
        issuer: String,
        clientIds: [String] = [],
        tokenUse: TokenUse = .id,
        clockTolerance: Double = CognitoConfiguration.defaultClockTolerance,
        blockedGroup: String = "blocked"
    ) {
        self.issuer = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        self.clientIds = clientIds
        self.tokenUse = tokenUse
        self.clockTolerance = clockTolerance
        self.blockedGroup = blockedGroup
    }

    /// The tolerance on a token's times when none is set: 5 seconds. Cognito signs on its hosts'
    /// clock and Lambda checks on its own, both kept by NTP (Amazon Time Sync) to well under a
    /// second; RFC 7519 leaves room for "some small leeway, usually no more than a few minutes, to
    /// account for clock skew" on `exp` and `nbf`, and aws-jwt-verify leaves it to its caller
    /// (`graceSeconds`). A few seconds keeps a token signed a moment "in the future" by a host whose
    /// clock leads (its `iat`, `nbf`) from being refused right after sign-in, and lets an expired
    /// token through for no longer than that: 5 s of an ID token's validity (an hour by default, 5
    /// minutes at least).
    package static let defaultClockTolerance: Double = 5

    /// The region, when the issuer is a Cognito URL.
    package var region: String? {
        guard IssuerForm(issuer: issuer) != nil, let host = HTTPURL(string: issuer)?.host else { return nil }
        return host.split(separator: ".").dropFirst().first.map(String.init)
    }

    /// Where the pool publishes its keys: `<issuer>/.well-known/jwks.json`.
    package var jwksURL: HTTPURL {
        HTTPURL(string: issuer + "/.well-known/jwks.json") ?? HTTPURL(
            string: "https://invalid-issuer.invalid/.well-known/jwks.json")!
    }
}
