import Foundation
import InkraTime
import Logging
import Synchronization

/// What `InitiateAuth` or `RespondToAuthChallenge` answers: tokens, or a challenge to answer.
package enum AuthOutcome: Sendable, Hashable {
    case tokens(AuthTokens)
    case challenge(name: String, parameters: [String: String], session: String?)
}

extension UserPool {
    /// `InitiateAuth` with `USER_PASSWORD_AUTH`, `USER_SRP_AUTH` or `REFRESH_TOKEN_AUTH`.
    /// - Throws: ``CognitoError`` as Cognito answers: an unknown client, a flow the client does not
    ///   allow, a missing parameter, bad credentials (also for an unknown user, since the clients
    ///   prevent user existence errors), an unconfirmed user, a bad or revoked refresh token.
    package func initiateAuth(clientID: String, flow: String, parameters: [String: String]) throws(CognitoError)
        -> AuthOutcome
    {
        let client = try appClient(clientID)
        let flows = ["USER_PASSWORD_AUTH", "USER_SRP_AUTH", "REFRESH_TOKEN_AUTH", "REFRESH_TOKEN"]
        guard flows.contains(flow) || ["CUSTOM_AUTH", "USER_AUTH"].contains(flow) else {
            throw CognitoError.invalidParameter(
                "1 validation error detected: Value '\(flow.prefix(64))' at 'authFlow' failed to satisfy constraint: "
                    + "Member must satisfy enum value set: [USER_SRP_AUTH, REFRESH_TOKEN_AUTH, REFRESH_TOKEN, "
                    + "CUSTOM_AUTH, ADMIN_NO_SRP_AUTH, USER_PASSWORD_AUTH, ADMIN_USER_PASSWORD_AUTH, USER_AUTH]")
        }
        guard client.allows(flow) else {
            throw CognitoError.invalidParameter("\(flow) flow not enabled for this client")
        }
        func required(_ name: String) throws(CognitoError) -> String {
            guard let value = parameters[name], !value.isEmpty else {
                throw CognitoError.invalidParameter("Missing required parameter \(name)")
            }
            return value
        }
        switch flow {
        case "USER_PASSWORD_AUTH":
            let username = try required("USERNAME")
            let password = try required("PASSWORD")
            let user = try knownUser(username, client: client)
            guard user.password?.matches(password) == true else { throw CognitoError.badCredentials }
            return try signedIn(user, client: client)
        case "USER_SRP_AUTH":
            return try srpChallenge(username: try required("USERNAME"), clientPublic: try required("SRP_A"), client)
        default:
            return try refresh(token: try required("REFRESH_TOKEN"), client: client)
        }
    }

    /// `RespondToAuthChallenge` to `PASSWORD_VERIFIER` (SRP) or `NEW_PASSWORD_REQUIRED`.
    /// - Throws: ``CognitoError``: `NotAuthorizedException` for a wrong proof (a wrong password),
    ///   an unknown or expired challenge; `UserNotConfirmedException` after a right proof of an
    ///   unconfirmed user; `InvalidPasswordException` for a weak new password.
    package func respondToAuthChallenge(
        clientID: String, name: String, responses: [String: String], session: String?
    ) throws(CognitoError) -> AuthOutcome {
        let client = try appClient(clientID)
        switch name {
        case "PASSWORD_VERIFIER":
            guard let block = responses["PASSWORD_CLAIM_SECRET_BLOCK"],
                let signature = responses["PASSWORD_CLAIM_SIGNATURE"],
                let timestamp = responses["TIMESTAMP"]
            else {
                throw CognitoError.invalidParameter(
                    "Missing required parameter PASSWORD_CLAIM_SECRET_BLOCK, PASSWORD_CLAIM_SIGNATURE or TIMESTAMP")
            }
            return try verifyPassword(block: block, signature: signature, timestamp: timestamp, client: client)
        case "NEW_PASSWORD_REQUIRED":
            guard let session, let password = responses["NEW_PASSWORD"] else {
                throw CognitoError.invalidParameter("Missing required parameter NEW_PASSWORD or Session")
            }
            return try changeRequiredPassword(session: session, password: password, client: client)
        default:
            throw CognitoError.invalidParameter("Invalid challenge name \(name.prefix(64)) for this user pool")
        }
    }

    /// The user a sign-in names; an unknown one is `Incorrect username or password.`, as the pool's
    /// clients prevent user existence errors.
    private func knownUser(_ username: String, client: AppClient) throws(CognitoError) -> PoolUser {
        guard let user = lookup(username) else {
            throw client.preventUserExistenceErrors ? CognitoError.badCredentials : CognitoError.userNotFound
        }
        return user
    }

    /// After a right password: tokens, `UserNotConfirmedException`, or the new-password challenge.
    private func signedIn(_ user: PoolUser, client: AppClient) throws(CognitoError) -> AuthOutcome {
        guard user.enabled else { throw CognitoError("NotAuthorizedException", "User is disabled.") }
        switch user.status {
        case .unconfirmed:
            throw CognitoError.notConfirmed
        case .forceChangePassword:
            var generator = SystemRandomNumberGenerator()
            let session = Data(Self.randomBytes(48, &generator)).base64EncodedString()
            let challenge = Challenge(
                kind: .newPassword, username: user.username, clientID: client.id,
                expires: now().addingTimeInterval(settings.challengeLifetime))
            state.withLock { $0.challenges[session] = challenge }
            let attributes = user.attributes.filter { $0.key != "email_verified" }
                .map { "\"\($0.key)\":\"\($0.value)\"" }.sorted().joined(separator: ",")
            return .challenge(
                name: "NEW_PASSWORD_REQUIRED",
                parameters: [
                    "USER_ID_FOR_SRP": user.username, "requiredAttributes": "[]", "userAttributes": "{\(attributes)}",
                ],
                session: session)
        case .confirmed:
            logger.info("signed in", metadata: ["user": "\(user.username)", "client": "\(client.id)"])
            return .tokens(try issueTokens(for: user, client: client, refreshing: nil))
        }
    }

    private func srpChallenge(username: String, clientPublic hex: String, _ client: AppClient) throws(CognitoError)
        -> AuthOutcome
    {
        guard hex.count <= 2048, let clientPublic = BigUInt(hex: hex), !(clientPublic % SRP.prime).isZero else {
            throw CognitoError.invalidParameter("SRP_A is not a valid SRP public value.")
        }
        var generator = SystemRandomNumberGenerator()
        let user = lookup(username)
        if user == nil && !client.preventUserExistenceErrors { throw CognitoError.userNotFound }
        // An unknown user gets a challenge over a random verifier, as Cognito simulates one, and
        // fails at the proof: the answer does not tell whether the user exists.
        let salt = user?.srp.flatMap { BigUInt(hex: $0.salt) } ?? BigUInt(bytes: Self.randomBytes(16, &generator))
        let verifier =
            user?.srp.flatMap { BigUInt(hex: $0.verifier) } ?? BigUInt(bytes: Self.randomBytes(384, &generator))
        let secret = BigUInt(bytes: Self.randomBytes(32, &generator))
        let serverPublic = SRP.serverPublic(verifier: verifier, secret: secret)
        let block = Data(Self.randomBytes(64, &generator)).base64EncodedString()
        let name = user?.username ?? username
        if let user {
            let challenge = Challenge(
                kind: .passwordVerifier(secret: secret, serverPublic: serverPublic, clientPublic: clientPublic),
                username: user.username, clientID: client.id,
                expires: now().addingTimeInterval(settings.challengeLifetime))
            state.withLock { state in
                let instant = now()
                state.challenges = state.challenges.filter { $0.value.expires > instant }
                state.challenges[block] = challenge
            }
        }
        return .challenge(
            name: "PASSWORD_VERIFIER",
            parameters: [
                "SALT": salt.hex, "SECRET_BLOCK": block, "SRP_B": serverPublic.hex, "USERNAME": name,
                "USER_ID_FOR_SRP": name,
            ],
            session: nil)
    }

    private func verifyPassword(block: String, signature: String, timestamp: String, client: AppClient)
        throws(CognitoError) -> AuthOutcome
    {
        let challenge = state.withLock { $0.challenges.removeValue(forKey: block) }
        guard let challenge, challenge.clientID == client.id, challenge.expires > now(),
            case .passwordVerifier(let secret, let serverPublic, let clientPublic) = challenge.kind,
            let user = lookup(challenge.username),
            let srp = user.srp, let verifier = BigUInt(hex: srp.verifier)
        else { throw CognitoError.badCredentials }
        guard SRP.isWellFormed(timestamp: timestamp) else {
            throw CognitoError.invalidParameter("TIMESTAMP format should be EEE MMM d HH:mm:ss z yyyy in english.")
        }
        guard let blockBytes = Data(base64Encoded: block), let proof = Data(base64Encoded: signature),
            let key = SRP.sessionKey(
                clientPublic: clientPublic, serverPublic: serverPublic, secret: secret, verifier: verifier)
        else { throw CognitoError.badCredentials }
        let expected = SRP.signature(
            key: key, poolName: settings.srpPoolName, userID: user.username, secretBlock: Array(blockBytes),
            timestamp: timestamp)
        guard expected.count == proof.count, zip(expected, proof).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0 else {
            throw CognitoError.badCredentials
        }
        return try signedIn(user, client: client)
    }

    private func changeRequiredPassword(session: String, password: String, client: AppClient) throws(CognitoError)
        -> AuthOutcome
    {
        let challenge = state.withLock { $0.challenges.removeValue(forKey: session) }
        guard let challenge, challenge.clientID == client.id, challenge.expires > now(),
            case .newPassword = challenge.kind
        else { throw CognitoError("NotAuthorizedException", "Invalid session for the user, session is expired.") }
        if let violation = settings.passwordPolicy.violation(of: password) { throw .invalidPassword(violation) }
        let (hash, srp) = passwordRecord(password, username: challenge.username)
        let user = try updateUser(challenge.username) { user in
            (user.password, user.srp) = (hash, srp)
            user.status = .confirmed
        }
        return try signedIn(user, client: client)
    }

    private func refresh(token: String, client: AppClient) throws(CognitoError) -> AuthOutcome {
        let hash = Self.sha256Hex(token)
        let (record, user) = try state.withLock {
            (state) throws(CognitoError) -> (UserPoolSnapshot.IssuedToken, PoolUser) in
            if state.snapshot.revokedTokens.contains(hash) { throw CognitoError.revokedRefreshToken }
            guard let record = state.snapshot.refreshTokens[hash], record.clientID == client.id,
                let index = state.userIndex(record.username)
            else { throw CognitoError.invalidRefreshToken }
            guard record.expires > now() else {
                throw CognitoError("NotAuthorizedException", "Refresh Token has expired")
            }
            return (record, state.snapshot.users[index])
        }
        guard user.enabled else { throw CognitoError("NotAuthorizedException", "User is disabled.") }
        return .tokens(try issueTokens(for: user, client: client, refreshing: record))
    }

    /// `GetUser`: the user an access token belongs to (also `GlobalSignOut`'s).
    /// - Throws: ``CognitoError``: `NotAuthorizedException` for a token this pool did not issue, an
    ///   expired or a revoked one.
    package func getUser(accessToken token: String) throws(CognitoError) -> PoolUser {
        let hash = Self.sha256Hex(token)
        return try state.withLock { (state) throws(CognitoError) -> PoolUser in
            if state.snapshot.revokedTokens.contains(hash) { throw CognitoError.revokedAccessToken }
            guard let record = state.snapshot.accessTokens[hash] else { throw CognitoError.invalidAccessToken }
            guard record.expires > now() else {
                throw CognitoError("NotAuthorizedException", "Access Token has expired")
            }
            guard let index = state.userIndex(record.username) else { throw CognitoError.userNotFound }
            return state.snapshot.users[index]
        }
    }

    /// `GlobalSignOut`: revokes every refresh and access token of the token's user.
    package func globalSignOut(accessToken: String) throws(CognitoError) {
        let user = try getUser(accessToken: accessToken)
        try journaled { state in Self.revokeTokens(of: user.username, in: &state) }
        logger.info("signed out everywhere", metadata: ["user": "\(user.username)"])
    }

    /// Revokes every refresh and access token of a user.
    static func revokeTokens(of username: String, in state: inout PoolState) {
        for (hash, record) in state.snapshot.refreshTokens where record.username == username {
            state.snapshot.revokedTokens.insert(hash)
            state.snapshot.refreshTokens[hash] = nil
        }
        for (hash, record) in state.snapshot.accessTokens where record.username == username {
            state.snapshot.revokedTokens.insert(hash)
            state.snapshot.accessTokens[hash] = nil
        }
    }

    /// `ForgotPassword`: a reset code in the log.
    /// - Throws: ``CognitoError``: an unknown client; a user without a verified email.
    package func forgotPassword(clientID: String, username: String) throws(CognitoError) -> CodeDelivery {
        try sendCode(.resetPassword, to: username, client: try appClient(clientID)) { (user) throws(CognitoError) in
            guard user.attributes["email_verified"] == "true" else {
                throw CognitoError.invalidParameter(
                    "Cannot reset password for the user as there is no registered/verified email or phone_number")
            }
        }
    }

    /// `ConfirmForgotPassword`: a new password with the reset code.
    /// - Throws: ``CognitoError``: a wrong or expired code (also for an unknown user), a weak password.
    package func confirmForgotPassword(clientID: String, username: String, code: String, password: String)
        throws(CognitoError)
    {
        let client = try appClient(clientID)
        if let violation = settings.passwordPolicy.violation(of: password) { throw .invalidPassword(violation) }
        guard let known = try? user(username) else {
            throw client.preventUserExistenceErrors ? CognitoError.codeMismatch : CognitoError.userNotFound
        }
        let (hash, srp) = passwordRecord(password, username: known.username)
        try updateUser(username) { (user) throws(CognitoError) in
            try Self.consume(code, purpose: .resetPassword, of: &user, at: now())
            (user.password, user.srp) = (hash, srp)
            if user.status == .forceChangePassword { user.status = .confirmed }
        }
    }

    static func randomBytes(_ count: Int, _ generator: inout some RandomNumberGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
