import Foundation
import InkraAuth

/// The local pool's rules: template.yaml's `UserPool`, `UserPoolClient` and groups, written once
/// here. A contract test (LocalUserPoolTests) parses template.yaml and holds these values to it,
/// so the local pool and the deployed one cannot drift.
package struct UserPoolSettings: Sendable {
    /// The pool id; the part after `_` is SRP's pool name.
    package var poolID = "us-east-1_InkraLocal"
    /// The form of the issuer its tokens carry: `nil` (the default) is the local endpoint's URL,
    /// `http://HOST:PORT/<poolId>`; ``IssuerForm/original`` or ``IssuerForm/updated`` is Cognito's
    /// URL of that form for ``poolID`` (its region the id's prefix), as a deployed pool with that
    /// `IssuerConfiguration` (template.yaml's `CognitoIssuer`) writes it.
    package var issuerForm: IssuerForm?
    /// The pool's name (template.yaml: `${AWS::StackName}-users`).
    package var poolName = "inkra-local-users"
    /// `UsernameAttributes`: users sign in with their email; their user name is a generated id.
    package var usernameAttributes = ["email"]
    /// `AutoVerifiedAttributes`.
    package var autoVerifiedAttributes = ["email"]
    /// `Policies.PasswordPolicy`.
    package var passwordPolicy = PasswordPolicy()
    /// The custom attributes of `Schema` (without the `custom:` prefix).
    package var customAttributes = [
        CustomAttribute(name: "subscription_tier", kind: .string, minimum: 1, maximum: 32),
        CustomAttribute(name: "monthly_quota", kind: .number, minimum: 1, maximum: 999_999),
    ]
    /// The pool's groups.
    package var groups = [
        PoolGroup(
            name: "free_tier", precedence: 10, description: "Free users (5 a month, 3 a day, 2 an hour by default)."),
        PoolGroup(
            name: "premium_tier", precedence: 1, description: "Premium users (100 a day, 20 an hour by default)."),
        PoolGroup(name: "blocked", precedence: 0, description: "Abusive accounts: the authorizer denies them."),
    ]
    /// template.yaml's app client (SRP only, as the app signs in) and a test-only client that also
    /// allows `USER_PASSWORD_AUTH`, for the AWS CLI, which cannot do SRP.
    package var clients = [
        AppClient(
            id: "inkra-local-client", name: "inkra-app",
            authFlows: ["ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"]),
        AppClient(
            id: "inkra-local-cli-client", name: "inkra-local-cli (test only)",
            authFlows: ["ALLOW_USER_SRP_AUTH", "ALLOW_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"]),
    ]
    /// Seconds a confirmation or password-reset code stays valid (Cognito: 24 hours for sign-up codes;
    /// one hour for reset codes).
    package var signUpCodeLifetime: TimeInterval = 24 * 3600
    /// Seconds a password-reset code stays valid.
    package var resetCodeLifetime: TimeInterval = 3600
    /// Seconds an SRP challenge may wait for its answer (Cognito's session: 3 minutes).
    package var challengeLifetime: TimeInterval = 180
    /// PBKDF2-SHA256 rounds for stored password hashes.
    package var hashRounds = 210_000

    /// template.yaml's pool.
    package init() {}

    /// SRP's pool name: the pool id after its `_`.
    package func issuer(localEndpoint: String) -> String {
        guard let issuerForm else { return "\(localEndpoint)/\(poolID)" }
        let region = poolID.split(separator: "_", maxSplits: 1).first.map(String.init) ?? "us-east-1"
        return issuerForm.issuer(region: region, userPoolId: poolID)
    }

    package var srpPoolName: String { String(poolID.split(separator: "_", maxSplits: 1).last ?? "") }

    /// The client of an id.
    package func client(_ id: String) -> AppClient? { clients.first { $0.id == id } }

    /// The custom attribute of a name (`custom:` prefix optional).
    package func customAttribute(_ name: String) -> CustomAttribute? {
        let bare = name.hasPrefix("custom:") ? String(name.dropFirst(7)) : name
        return customAttributes.first { $0.name == bare }
    }
}

/// `Policies.PasswordPolicy`.
package struct PasswordPolicy: Sendable, Hashable {
    package var minimumLength = 12
    package var requireLowercase = true
    package var requireUppercase = true
    package var requireNumbers = true
    package var requireSymbols = false

    /// template.yaml's policy.
    package init() {}

    /// The symbols Cognito counts (its documented special characters).
    static let symbols = Set("^$*.[]{}()?\"!@#%&/\\,><':;|_~`=+-")

    /// Cognito's reason a password breaks the policy, or `nil` when it conforms.
    package func violation(of password: String) -> String? {
        let prefix = "Password did not conform with policy: "
        if password.count < minimumLength { return prefix + "Password not long enough" }
        if password.count > 256 { return prefix + "Password is too long" }
        if requireLowercase, !password.contains(where: \.isLowercase) {
            return prefix + "Password must have lowercase characters"
        }
        if requireUppercase, !password.contains(where: \.isUppercase) {
            return prefix + "Password must have uppercase characters"
        }
        if requireNumbers, !password.contains(where: { $0.isASCII && $0.isNumber }) {
            return prefix + "Password must have numeric characters"
        }
        if requireSymbols, !password.contains(where: { Self.symbols.contains($0) || $0 == " " }) {
            return prefix + "Password must have symbol characters"
        }
        if password.first?.isWhitespace == true || password.last?.isWhitespace == true {
            return prefix + "Password must satisfy regular expression pattern: ^\\S.*\\S$"
        }
        return nil
    }
}

/// A custom attribute of the pool's schema.
package struct CustomAttribute: Sendable, Hashable {
    /// `String` or `Number`.
    package enum Kind: String, Sendable, Hashable {
        case string = "String"
        case number = "Number"
    }
    /// The name without `custom:`.
    package var name: String
    package var kind: Kind
    /// `MinLength`/`MinValue`.
    package var minimum: Int
    /// `MaxLength`/`MaxValue`.
    package var maximum: Int

    /// Whether a value fits the constraints.
    package func accepts(_ value: String) -> Bool {
        switch kind {
        case .string: return (minimum...maximum).contains(value.count)
        case .number: return Int(value).map { (minimum...maximum).contains($0) } ?? false
        }
    }
}

/// A group of the pool.
package struct PoolGroup: Sendable, Hashable {
    package var name: String
    package var precedence: Int
    package var description: String
}

/// An app client of the pool.
package struct AppClient: Sendable, Hashable {
    package var id: String
    package var name: String
    /// `ExplicitAuthFlows`.
    package var authFlows: [String]
    /// `PreventUserExistenceErrors: ENABLED`.
    package var preventUserExistenceErrors = true
    /// `IdTokenValidity` in seconds (60 minutes).
    package var idTokenValidity: TimeInterval = 3600
    /// `AccessTokenValidity` in seconds (60 minutes).
    package var accessTokenValidity: TimeInterval = 3600
    /// `RefreshTokenValidity` in seconds (Cognito's default, 30 days).
    package var refreshTokenValidity: TimeInterval = 30 * 86_400
    /// `ReadAttributes`.
    package var readAttributes = ["email", "email_verified", "custom:subscription_tier", "custom:monthly_quota"]
    /// `WriteAttributes`.
    package var writeAttributes = ["email"]

    /// Whether the client allows a flow (`USER_SRP_AUTH`, `USER_PASSWORD_AUTH`, `REFRESH_TOKEN_AUTH`).
    package func allows(_ flow: String) -> Bool {
        authFlows.contains("ALLOW_" + (flow == "REFRESH_TOKEN" ? "REFRESH_TOKEN_AUTH" : flow))
    }
}
