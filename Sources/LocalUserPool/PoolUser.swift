import Foundation
import InkraTime

/// A user of the local pool, as `--state` keeps it.
package struct PoolUser: Sendable, Hashable {
    /// Where the user is in sign-up: `UNCONFIRMED`, `CONFIRMED` or `FORCE_CHANGE_PASSWORD`.
    package enum Status: String, Sendable, Hashable {
        case unconfirmed = "UNCONFIRMED"
        case confirmed = "CONFIRMED"
        case forceChangePassword = "FORCE_CHANGE_PASSWORD"
    }

    /// A code sent to the user (printed in the log here).
    struct PendingCode: Sendable, Hashable {
        enum Purpose: String, Sendable, Hashable { case signUp, resetPassword }
        var code: String
        var purpose: Purpose
        var expires: Timestamp
    }

    /// The SRP salt (hex) and verifier v = g^x mod N (hex).
    struct SRPVerifier: Sendable, Hashable {
        var salt: String
        var verifier: String
    }

    /// `cognito:username`: a generated id, since the pool's users sign in with their email.
    package var username: String
    /// `sub`.
    package var sub: String
    /// The attributes by name (`email`, `email_verified`, `custom:subscription_tier`, …), as strings.
    package var attributes: [String: String]
    /// The status.
    package var status: Status
    /// Whether the user may sign in.
    package var enabled = true
    /// When the user was created.
    package var created: Timestamp
    /// When the user last changed.
    package var modified: Timestamp
    /// The groups the user is in.
    package var groups: [String] = []
    var password: PasswordHash?
    var srp: SRPVerifier?
    var pendingCode: PendingCode?

    /// The user's email.
    package var email: String? { attributes["email"] }

    /// The attributes as Cognito lists them: `sub` first, then by name.
    package var attributeList: [(name: String, value: String)] {
        [("sub", sub)] + attributes.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}

/// What `--state` keeps of the pool: its users and their groups, and the refresh and access tokens
/// it issued (as SHA-256 hashes, never the tokens).
package struct UserPoolSnapshot: Sendable, Hashable {
    /// An issued token's record, under its hash.
    struct IssuedToken: Sendable, Hashable {
        var username: String
        var clientID: String
        var expires: Timestamp
        var authTime: Timestamp
        var originJti: String
    }

    /// The pool id, so a state file of another pool is not mistaken for this one's.
    package var poolID: String
    /// The users.
    package var users: [PoolUser] = []
    var refreshTokens: [String: IssuedToken] = [:]
    var accessTokens: [String: IssuedToken] = [:]
    /// Hashes of tokens `GlobalSignOut` or `AdminDeleteUser` revoked.
    var revokedTokens: Set<String> = []

    /// An empty pool.
    package init(poolID: String) { self.poolID = poolID }
}
