import Crypto
import Foundation
import InkraAuth
import InkraTime
import Logging
import Synchronization

/// A Cognito user pool in memory, with template.yaml's rules (``UserPoolSettings``): sign-up and
/// confirmation, sign-in by password or SRP-6a, refresh, sign-out, password reset and the admin
/// calls, issuing id, access and refresh tokens signed by the development key.
///
/// Passwords are kept only as PBKDF2 hashes and SRP verifiers; refresh and access tokens only as
/// SHA-256 hashes. Confirmation and reset codes go to the log (with the user's generated user
/// name, never an email or a password), since nothing is mailed locally.
package final class UserPool: Sendable {
    /// The pool's rules.
    package let settings: UserPoolSettings
    let signer: TokenSigner
    let now: @Sendable () -> Timestamp
    let logger: Logger
    let announce: (@Sendable (String) -> Void)?
    /// Where each change is recorded before it is answered (`serve --state`); `nil` keeps the pool
    /// in memory only.
    let journal: (any UserPoolJournal)?
    let state: Mutex<PoolState>
    private let issuerURL: Mutex<String>
    private let servedKeysURL = Mutex<String?>(nil)

    /// A pool, empty or restored from a snapshot.
    /// - Parameters:
    ///   - settings: the pool's rules (template.yaml's by default).
    ///   - signer: the key tokens are signed with (the development key).
    ///   - issuer: `iss` of the tokens: `http://HOST:PORT/<poolId>`; settable once the port is known.
    ///   - snapshot: users and issued tokens to restore (from `--state`).
    ///   - now: the clock.
    ///   - logger: where codes and sign-ins are logged.
    ///   - announce: where a confirmation or reset code is written whatever the log level (`serve`:
    ///     standard error); `nil` logs it at `notice` only.
    ///   - journal: where each change is recorded before it is answered (`serve --state`).
    package init(
        settings: UserPoolSettings = UserPoolSettings(),
        signer: TokenSigner,
        issuer: String,
        snapshot: UserPoolSnapshot? = nil,
        now: @escaping @Sendable () -> Timestamp,
        logger: Logger = Logger(label: "inkra.userpool"),
        announce: (@Sendable (String) -> Void)? = nil,
        journal: (any UserPoolJournal)? = nil
    ) {
        self.announce = announce
        self.journal = journal
        self.settings = settings
        self.signer = signer
        self.now = now
        self.logger = logger
        issuerURL = Mutex(issuer)
        let restored = snapshot.flatMap { $0.poolID == settings.poolID ? $0 : nil }
        state = Mutex(PoolState(snapshot: restored ?? UserPoolSnapshot(poolID: settings.poolID)))
    }

    /// `iss` of the tokens issued from now on.
    package var issuer: String {
        get { issuerURL.withLock { $0 } }
        set { issuerURL.withLock { $0 = newValue } }
    }

    /// Where the pool's keys are served when that is not `<issuer>/.well-known/jwks.json` (a local
    /// pool issuing a Cognito issuer URL serves them at its own endpoint); `nil` for the issuer's.
    package var keysURL: String? {
        get { servedKeysURL.withLock { $0 } }
        set { servedKeysURL.withLock { $0 = newValue } }
    }

    /// The users and issued tokens, for `--state`.
    package var snapshot: UserPoolSnapshot { state.withLock { $0.snapshot } }

    /// The public JWKS tokens verify with.
    package var jwks: [UInt8] { signer.jwks }

    // MARK: Sign-up

    /// What a code went to, as `CodeDeliveryDetails` says it (a masked email).
    package struct CodeDelivery: Sendable, Hashable {
        package var destination: String
        package var medium = "EMAIL"
        package var attribute = "email"
    }

    /// `SignUp`: an unconfirmed user whose confirmation code is logged.
    /// - Returns: the new user's `sub` and where the code went.
    /// - Throws: ``CognitoError`` as Cognito answers: unknown client, a user name that is not an
    ///   email, an attribute the client may not write or the schema does not have, a weak password,
    ///   an email already signed up.
    package func signUp(clientID: String, username: String, password: String, attributes: [(String, String)])
        throws(CognitoError) -> (sub: String, delivery: CodeDelivery)
    {
        let client = try appClient(clientID)
        var generator = SystemRandomNumberGenerator()
        let code = Self.code(using: &generator)
        let user = try createUser(
            username, attributes, password: password, status: .unconfirmed, writableBy: client,
            pendingCode: .init(
                code: code, purpose: .signUp, expires: now().addingTimeInterval(settings.signUpCodeLifetime)))
        logCode(code, for: user, purpose: "sign-up confirmation")
        return (user.sub, CodeDelivery(destination: Self.mask(username.lowercased())))
    }

    /// Creates a user named by its email, with checked attributes (those `client` may write,
    /// when given) and a password record, and adds it to the pool.
    /// - Throws: ``CognitoError``: a user name that is not an email, an attribute the client may
    ///   not write or the schema does not have, a weak password, an email already in use.
    func createUser(
        _ username: String, _ attributes: [(String, String)], password: String?, status: PoolUser.Status,
        writableBy client: AppClient? = nil, pendingCode: PoolUser.PendingCode? = nil
    ) throws(CognitoError) -> PoolUser {
        let email = try emailUsername(username)
        var values = ["email": email]
        for (name, value) in attributes where name != "email" || value.lowercased() != email {
            guard client?.writeAttributes.contains(name) ?? true else {
                throw CognitoError("NotAuthorizedException", "A client attempted to write unauthorized attribute")
            }
            values[name] = try checkedAttribute(name, value)
        }
        if let password, let violation = settings.passwordPolicy.violation(of: password) {
            throw .invalidPassword(violation)
        }
        let sub = UUID().uuidString.lowercased()
        var user = PoolUser(
            username: sub, sub: sub, attributes: values, status: status, created: now(), modified: now())
        if let password { (user.password, user.srp) = passwordRecord(password, username: sub) }
        user.pendingCode = pendingCode
        try journaled { (state) throws(CognitoError) in
            guard state.userIndex(email) == nil else { throw CognitoError.usernameExists }
            state.snapshot.users.append(user)
        }
        return user
    }

    /// `ConfirmSignUp`.
    /// - Throws: ``CognitoError``: an unknown user (`CodeMismatchException` when the client prevents
    ///   user existence errors), a wrong or expired code, or a user already confirmed.
    package func confirmSignUp(clientID: String, username: String, code: String) throws(CognitoError) {
        let client = try appClient(clientID)
        try journaled { (state) throws(CognitoError) in
            guard let index = state.userIndex(username) else {
                throw client.preventUserExistenceErrors ? CognitoError.codeMismatch : CognitoError.userNotFound
            }
            guard state.snapshot.users[index].status == .unconfirmed else {
                throw CognitoError(
                    "NotAuthorizedException",
                    "User cannot be confirmed. Current status is \(state.snapshot.users[index].status.rawValue)")
            }
            try Self.consume(code, purpose: .signUp, of: &state.snapshot.users[index], at: now())
            state.snapshot.users[index].status = .confirmed
            state.snapshot.users[index].attributes["email_verified"] = "true"
            state.snapshot.users[index].modified = now()
        }
    }

    /// `ResendConfirmationCode`: a fresh code in the log.
    /// - Throws: ``CognitoError``: an unknown client; an unknown user (unless the client prevents
    ///   user existence errors, when a simulated delivery is answered); a user already confirmed.
    package func resendConfirmationCode(clientID: String, username: String) throws(CognitoError) -> CodeDelivery {
        try sendCode(.signUp, to: username, client: try appClient(clientID)) { (user) throws(CognitoError) in
            guard user.status == .unconfirmed else { throw CognitoError.invalidParameter("User is already confirmed.") }
        }
    }

    /// Gives a user a fresh code for `purpose` (after `check` of the user) and logs it; an unknown
    /// user of a client that prevents user existence errors gets a simulated delivery.
    func sendCode(
        _ purpose: PoolUser.PendingCode.Purpose, to username: String, client: AppClient,
        check: (PoolUser) throws(CognitoError) -> Void
    ) throws(CognitoError) -> CodeDelivery {
        var generator = SystemRandomNumberGenerator()
        let code = Self.code(using: &generator)
        let lifetime = purpose == .signUp ? settings.signUpCodeLifetime : settings.resetCodeLifetime
        let user = try journaled { (state) throws(CognitoError) -> PoolUser? in
            guard let index = state.userIndex(username) else {
                if client.preventUserExistenceErrors { return nil }
                throw CognitoError.userNotFound
            }
            try check(state.snapshot.users[index])
            state.snapshot.users[index].pendingCode = .init(
                code: code, purpose: purpose, expires: now().addingTimeInterval(lifetime))
            return state.snapshot.users[index]
        }
        guard let user else { return CodeDelivery(destination: Self.mask(username)) }
        logCode(code, for: user, purpose: purpose == .signUp ? "sign-up confirmation" : "password reset")
        return CodeDelivery(destination: Self.mask(user.email ?? username))
    }

    // MARK: Shared helpers

    func appClient(_ id: String) throws(CognitoError) -> AppClient {
        guard let client = settings.client(id) else {
            throw CognitoError("ResourceNotFoundException", "User pool client \(id.prefix(128)) does not exist.")
        }
        return client
    }

    /// The user name of a pool whose users sign in with their email: the email, lower-cased.
    func emailUsername(_ username: String) throws(CognitoError) -> String {
        let parts = username.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !username.contains(" "),
            username.count <= 128
        else { throw CognitoError.invalidParameter("Username should be an email.") }
        return username.lowercased()
    }

    /// A schema attribute's value, checked: `email`, `email_verified` or a custom attribute.
    func checkedAttribute(_ name: String, _ value: String) throws(CognitoError) -> String {
        switch name {
        case "email": return try emailUsername(value)
        case "email_verified":
            guard value == "true" || value == "false" else {
                throw CognitoError.invalidParameter("Invalid value for email_verified: it must be true or false.")
            }
            return value
        case "name", "given_name", "family_name", "locale", "zoneinfo", "picture", "website", "nickname":
            return value
        default:
            guard name.hasPrefix("custom:"), let attribute = settings.customAttribute(name) else {
                throw CognitoError.invalidParameter(
                    "Attributes did not conform to the schema: Type for attribute {\(name.prefix(64))} could not be determined"
                )
            }
            guard attribute.accepts(value) else {
                throw CognitoError.invalidParameter(
                    "Attributes did not conform to the schema: \(name): The attribute value is out of range "
                        + "(\(attribute.minimum) to \(attribute.maximum)\(attribute.kind == .string ? " characters" : ""))"
                )
            }
            return value
        }
    }

    /// What the pool keeps of a password: a PBKDF2 hash and an SRP verifier, each with a fresh salt.
    /// Slow on purpose: computed outside the pool's lock.
    func passwordRecord(_ password: String, username: String) -> (PasswordHash, PoolUser.SRPVerifier) {
        var generator = SystemRandomNumberGenerator()
        let hash = PasswordHash(password: password, rounds: settings.hashRounds, using: &generator)
        let salt = BigUInt(bytes: Self.randomBytes(16, &generator))
        let verifier = SRP.verifier(salt: salt, poolName: settings.srpPoolName, userID: username, password: password)
        return (hash, .init(salt: salt.hex, verifier: verifier.hex))
    }

    /// Changes a user under the lock.
    /// - Throws: ``CognitoError/userNotFound`` for an unknown user, or what `change` throws.
    @discardableResult
    func updateUser(_ name: String, _ change: (inout PoolUser) throws(CognitoError) -> Void) throws(CognitoError)
        -> PoolUser
    {
        try journaled { (state) throws(CognitoError) -> PoolUser in
            guard let index = state.userIndex(name) else { throw CognitoError.userNotFound }
            var user = state.snapshot.users[index]
            try change(&user)
            user.modified = now()
            state.snapshot.users[index] = user
            return user
        }
    }

    /// The user a name names, or `UserNotFoundException`.
    func user(_ name: String) throws(CognitoError) -> PoolUser {
        guard let found = lookup(name) else { throw CognitoError.userNotFound }
        return found
    }

    /// The user a name names, if any.
    func lookup(_ name: String) -> PoolUser? {
        state.withLock { state in state.userIndex(name).map { state.snapshot.users[$0] } }
    }

    static func consume(
        _ code: String, purpose: PoolUser.PendingCode.Purpose, of user: inout PoolUser, at instant: Timestamp
    )
        throws(CognitoError)
    {
        guard let pending = user.pendingCode, pending.purpose == purpose, pending.code == code else {
            throw CognitoError.codeMismatch
        }
        guard pending.expires > instant else { throw CognitoError.expiredCode }
        user.pendingCode = nil
    }

    func logCode(_ code: String, for user: PoolUser, purpose: String) {
        announce?("user pool: \(purpose) code for user \(user.username): \(code)")
        logger.notice(
            "\(purpose) code for user \(user.username): \(code)",
            metadata: ["user": "\(user.username)", "code": "\(code)", "purpose": "\(purpose)"])
    }

    static func code(using generator: inout some RandomNumberGenerator) -> String {
        let value = Int.random(in: 0..<1_000_000, using: &generator)
        let digits = String(value)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }

    /// `a***@e***` as Cognito masks a delivery address.
    static func mask(_ email: String) -> String {
        let parts = email.split(separator: "@", maxSplits: 1)
        guard parts.count == 2 else { return "***" }
        return "\(parts[0].prefix(1))***@\(parts[1].prefix(1))***"
    }

    static func sha256Hex(_ text: String) -> String {
        SHA256.hash(data: Array(text.utf8)).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }
}

/// The pool's mutable state.
struct PoolState: Sendable {
    var snapshot: UserPoolSnapshot
    /// SRP and new-password challenges waiting for their answer, by secret block or session.
    var challenges: [String: Challenge] = [:]

    /// The index of the user a name names: the generated user name, or the email (any case).
    func userIndex(_ name: String) -> Int? {
        let lowered = name.lowercased()
        return snapshot.users.firstIndex { $0.username == name || $0.email == lowered }
    }
}

/// A challenge handed to a client, waiting for its answer.
struct Challenge: Sendable {
    enum Kind: Sendable {
        case passwordVerifier(secret: BigUInt, serverPublic: BigUInt, clientPublic: BigUInt)
        case newPassword
    }
    var kind: Kind
    var username: String
    var clientID: String
    var expires: Timestamp
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
