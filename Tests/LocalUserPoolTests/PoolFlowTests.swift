import Foundation
import InkraAuth
import InkraJSON
import InkraTesting
import Synchronization
import Testing

@testable import LocalUserPool

/// The pool's answers as a user and an operator see them. Error types and messages follow the
/// Cognito API Reference (InitiateAuth, SignUp, ConfirmSignUp, RespondToAuthChallenge, GetUser,
/// GlobalSignOut) and "Managing user existence error responses" in the Cognito developer guide,
/// since template.yaml's client sets PreventUserExistenceErrors: ENABLED.
@Suite("The local user pool: sign-up, sign-in, refresh, sign-out, admin calls")
struct PoolFlowTests {
    private func expectError(
        _ type: String, _ message: String? = nil, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Void
    ) {
        do {
            try body()
            Issue.record("expected \(type), got success", sourceLocation: sourceLocation)
        } catch let error as CognitoError {
            #expect(error.type == type, sourceLocation: sourceLocation)
            if let message { #expect(error.message == message, sourceLocation: sourceLocation) }
        } catch {
            Issue.record("expected \(type), got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test(
        "sign-up, confirmation with the logged code, and a password sign-in whose id token the project's verifier accepts"
    )
    func signUpAndSignIn() async throws {
        let fixture = PoolFixture()
        let sub = try fixture.confirmedUser("alice@example.com")
        let tokens = try fixture.signIn("alice@example.com")
        #expect(tokens.expiresIn == 3600)
        #expect(tokens.refreshToken != nil)
        let verifier = TokenVerifier(
            configuration: CognitoConfiguration(
                issuer: PoolFixture.issuer, clientIds: [PoolFixture.cliClient], tokenUse: .id),
            keys: try JWKSKeySource(jwks: fixture.pool.jwks), now: { fixture.clock.now })
        let claims = try await verifier.verify(tokens.idToken)
        #expect(claims.subject == sub)
        #expect(claims.email == "alice@example.com")
        let other = TokenVerifier(
            configuration: CognitoConfiguration(
                issuer: "http://127.0.0.1:9229/us-east-1_OtherPool", clientIds: [PoolFixture.cliClient]),
            keys: try JWKSKeySource(jwks: fixture.pool.jwks), now: { fixture.clock.now })
        await #expect(throws: AuthError.self) { try await other.verify(tokens.idToken) }
    }

    @Test("SRP sign-in: the right password signs in, a wrong one is NotAuthorizedException")
    func srp() throws {
        let fixture = PoolFixture()
        try fixture.confirmedUser("bob@example.com")
        for (password, succeeds) in [(PoolFixture.password, true), ("Wrong-Horse-9battery", false)] {
            let client = TestSRPClient()
            let outcome = try fixture.pool.initiateAuth(
                clientID: PoolFixture.appClient, flow: "USER_SRP_AUTH",
                parameters: ["USERNAME": "bob@example.com", "SRP_A": client.clientPublic.hex])
            guard case .challenge("PASSWORD_VERIFIER", let parameters, _) = outcome else {
                Issue.record("expected PASSWORD_VERIFIER, got \(outcome)")
                return
            }
            let timestamp = SRP.timestamp(fixture.clock.now)
            let responses = [
                "USERNAME": parameters["USERNAME"] ?? "",
                "PASSWORD_CLAIM_SECRET_BLOCK": parameters["SECRET_BLOCK"] ?? "",
                "TIMESTAMP": timestamp,
                "PASSWORD_CLAIM_SIGNATURE": try client.signature(
                    challenge: parameters, password: password, timestamp: timestamp),
            ]
            if succeeds {
                let answer = try fixture.pool.respondToAuthChallenge(
                    clientID: PoolFixture.appClient, name: "PASSWORD_VERIFIER", responses: responses, session: nil)
                guard case .tokens = answer else {
                    Issue.record("expected tokens, got \(answer)")
                    return
                }
                // The secret block answers once.
                expectError("NotAuthorizedException", "Incorrect username or password.") {
                    _ = try fixture.pool.respondToAuthChallenge(
                        clientID: PoolFixture.appClient, name: "PASSWORD_VERIFIER", responses: responses, session: nil)
                }
            } else {
                expectError("NotAuthorizedException", "Incorrect username or password.") {
                    _ = try fixture.pool.respondToAuthChallenge(
                        clientID: PoolFixture.appClient, name: "PASSWORD_VERIFIER", responses: responses, session: nil)
                }
            }
        }
    }

    @Test("unknown users, wrong passwords and unconfirmed users get Cognito's errors")
    func signInFailures() throws {
        let fixture = PoolFixture()
        try fixture.confirmedUser("carol@example.com")
        expectError("NotAuthorizedException", "Incorrect username or password.") {
            _ = try fixture.signIn("nobody@example.com")
        }
        expectError("NotAuthorizedException", "Incorrect username or password.") {
            _ = try fixture.signIn("carol@example.com", password: "Wrong-Horse-9battery")
        }
        _ = try fixture.pool.signUp(
            clientID: PoolFixture.appClient, username: "dave@example.com", password: PoolFixture.password,
            attributes: [])
        expectError("UserNotConfirmedException", "User is not confirmed.") {
            _ = try fixture.signIn("dave@example.com")
        }
        expectError("NotAuthorizedException") {
            _ = try fixture.signIn("dave@example.com", password: "Wrong-Horse-9battery")
        }
        // The app's client allows SRP only.
        expectError("InvalidParameterException", "USER_PASSWORD_AUTH flow not enabled for this client") {
            _ = try fixture.pool.initiateAuth(
                clientID: PoolFixture.appClient, flow: "USER_PASSWORD_AUTH",
                parameters: ["USERNAME": "carol@example.com", "PASSWORD": PoolFixture.password])
        }
        expectError("ResourceNotFoundException") {
            _ = try fixture.pool.initiateAuth(clientID: "no-such-client", flow: "USER_PASSWORD_AUTH", parameters: [:])
        }
    }

    @Test(
        "sign-up refuses a weak password, a duplicate email, a non-email user name and attributes the app may not write"
    )
    func signUpFailures() throws {
        let fixture = PoolFixture()
        try fixture.confirmedUser("erin@example.com")
        expectError("InvalidPasswordException", "Password did not conform with policy: Password not long enough") {
            _ = try fixture.pool.signUp(
                clientID: PoolFixture.appClient, username: "f@example.com", password: "Short1a", attributes: [])
        }
        expectError("UsernameExistsException", "An account with the given email already exists.") {
            _ = try fixture.pool.signUp(
                clientID: PoolFixture.appClient, username: "Erin@Example.com", password: PoolFixture.password,
                attributes: [])
        }
        expectError("InvalidParameterException", "Username should be an email.") {
            _ = try fixture.pool.signUp(
                clientID: PoolFixture.appClient, username: "erin", password: PoolFixture.password, attributes: [])
        }
        expectError("NotAuthorizedException", "A client attempted to write unauthorized attribute") {
            _ = try fixture.pool.signUp(
                clientID: PoolFixture.appClient, username: "g@example.com", password: PoolFixture.password,
                attributes: [("custom:subscription_tier", "premium")])
        }
        #expect(fixture.pool.snapshot.users.count == 1)
    }

    @Test("confirmation codes: a wrong one is CodeMismatchException, an expired one ExpiredCodeException")
    func codes() throws {
        let fixture = PoolFixture()
        let (sub, delivery) = try fixture.pool.signUp(
            clientID: PoolFixture.appClient, username: "hana@example.com", password: PoolFixture.password,
            attributes: [])
        #expect(delivery.destination == "h***@e***")
        let code = try #require(fixture.pool.snapshot.users.first { $0.sub == sub }?.pendingCode?.code)
        let wrong = code == "000000" ? "111111" : "000000"
        expectError("CodeMismatchException", "Invalid verification code provided, please try again.") {
            try fixture.pool.confirmSignUp(clientID: PoolFixture.appClient, username: "hana@example.com", code: wrong)
        }
        fixture.advance(25 * 3600)
        expectError("ExpiredCodeException", "Invalid code provided, please request a code again.") {
            try fixture.pool.confirmSignUp(clientID: PoolFixture.appClient, username: "hana@example.com", code: code)
        }
        _ = try fixture.pool.resendConfirmationCode(clientID: PoolFixture.appClient, username: "hana@example.com")
        let fresh = try #require(fixture.pool.snapshot.users.first { $0.sub == sub }?.pendingCode?.code)
        try fixture.pool.confirmSignUp(clientID: PoolFixture.appClient, username: "hana@example.com", code: fresh)
        expectError("NotAuthorizedException", "User cannot be confirmed. Current status is CONFIRMED") {
            try fixture.pool.confirmSignUp(clientID: PoolFixture.appClient, username: "hana@example.com", code: fresh)
        }
    }

    @Test(
        "a refresh carries the attributes and groups an admin changed; GlobalSignOut revokes refresh and access tokens")
    func refreshAndSignOut() throws {
        let fixture = PoolFixture()
        try fixture.confirmedUser("ivan@example.com")
        let tokens = try fixture.signIn("ivan@example.com")
        let refreshToken = try #require(tokens.refreshToken)
        try fixture.pool.adminUpdateUserAttributes(
            username: "ivan@example.com",
            attributes: [("custom:subscription_tier", "premium"), ("custom:monthly_quota", "500")])
        try fixture.pool.adminAddUserToGroup(username: "ivan@example.com", group: "blocked")
        fixture.advance(60)
        let outcome = try fixture.pool.initiateAuth(
            clientID: PoolFixture.cliClient, flow: "REFRESH_TOKEN_AUTH", parameters: ["REFRESH_TOKEN": refreshToken])
        guard case .tokens(let refreshed) = outcome else {
            Issue.record("expected tokens")
            return
        }
        #expect(refreshed.refreshToken == nil)
        let id = try payload(of: refreshed.idToken)
        #expect(id["custom:subscription_tier"] == "premium")
        #expect(id["custom:monthly_quota"] == "500")
        #expect(id["cognito:groups"] == ["blocked"])
        let original = try payload(of: tokens.idToken)
        #expect(id["auth_time"] == original["auth_time"])
        #expect(id["origin_jti"] == original["origin_jti"])
        #expect(id["iat"] != original["iat"])
        #expect(try fixture.pool.getUser(accessToken: refreshed.accessToken).email == "ivan@example.com")
        try fixture.pool.globalSignOut(accessToken: refreshed.accessToken)
        expectError("NotAuthorizedException", "Refresh Token has been revoked") {
            _ = try fixture.pool.initiateAuth(
                clientID: PoolFixture.cliClient, flow: "REFRESH_TOKEN_AUTH", parameters: ["REFRESH_TOKEN": refreshToken]
            )
        }
        expectError("NotAuthorizedException", "Access Token has been revoked") {
            _ = try fixture.pool.getUser(accessToken: refreshed.accessToken)
        }
        expectError("NotAuthorizedException", "Invalid Access Token") {
            _ = try fixture.pool.getUser(accessToken: "not-a-token")
        }
    }

    @Test("admin calls: a temporary password asks for a new one; unknown users and groups are refused")
    func admin() throws {
        let fixture = PoolFixture()
        let user = try fixture.pool.adminCreateUser(
            username: "jo@example.com", attributes: [("email_verified", "true")], temporaryPassword: "Temporary-Pass1")
        #expect(user.status == .forceChangePassword)
        let outcome = try fixture.pool.initiateAuth(
            clientID: PoolFixture.cliClient, flow: "USER_PASSWORD_AUTH",
            parameters: ["USERNAME": "jo@example.com", "PASSWORD": "Temporary-Pass1"])
        guard case .challenge("NEW_PASSWORD_REQUIRED", _, let session?) = outcome else {
            Issue.record("expected NEW_PASSWORD_REQUIRED, got \(outcome)")
            return
        }
        let answer = try fixture.pool.respondToAuthChallenge(
            clientID: PoolFixture.cliClient, name: "NEW_PASSWORD_REQUIRED",
            responses: ["USERNAME": user.username, "NEW_PASSWORD": PoolFixture.password], session: session)
        guard case .tokens = answer else {
            Issue.record("expected tokens")
            return
        }
        #expect(try fixture.pool.adminGetUser(username: "jo@example.com").status == .confirmed)
        expectError("UserNotFoundException", "User does not exist.") {
            _ = try fixture.pool.adminGetUser(username: "nobody@example.com")
        }
        expectError("ResourceNotFoundException", "Group not found.") {
            try fixture.pool.adminAddUserToGroup(username: "jo@example.com", group: "admins")
        }
        expectError("InvalidParameterException") {
            try fixture.pool.adminUpdateUserAttributes(
                username: "jo@example.com", attributes: [("custom:monthly_quota", "0")])
        }
        try fixture.pool.adminAddUserToGroup(username: "jo@example.com", group: "premium_tier")
        #expect(try fixture.pool.listUsersInGroup("premium_tier").map(\.username) == [user.username])
        #expect(try fixture.pool.listUsers(filter: "email = \"jo@example.com\"").count == 1)
        try fixture.pool.adminRemoveUserFromGroup(username: "jo@example.com", group: "premium_tier")
        #expect(try fixture.pool.listUsersInGroup("premium_tier").isEmpty)
        try fixture.pool.adminDeleteUser(username: "jo@example.com")
        #expect(try fixture.pool.listUsers(filter: nil).isEmpty)
    }

    @Test("forgot password: the reset code sets a new password; the old one stops working")
    func forgotPassword() throws {
        let fixture = PoolFixture()
        let sub = try fixture.confirmedUser("kim@example.com")
        _ = try fixture.pool.forgotPassword(clientID: PoolFixture.appClient, username: "kim@example.com")
        let code = try #require(fixture.pool.snapshot.users.first { $0.sub == sub }?.pendingCode?.code)
        expectError("InvalidPasswordException") {
            try fixture.pool.confirmForgotPassword(
                clientID: PoolFixture.appClient, username: "kim@example.com", code: code, password: "alllowercase12")
        }
        try fixture.pool.confirmForgotPassword(
            clientID: PoolFixture.appClient, username: "kim@example.com", code: code, password: "Another-Pass-42")
        _ = try fixture.signIn("kim@example.com", password: "Another-Pass-42")
        expectError("NotAuthorizedException") { _ = try fixture.signIn("kim@example.com") }
        expectError("CodeMismatchException") {
            try fixture.pool.confirmForgotPassword(
                clientID: PoolFixture.appClient, username: "nobody@example.com", code: "123456",
                password: "Another-Pass-42")
        }
    }

    @Test("concurrent sign-ups of one email: exactly one succeeds, the rest are UsernameExistsException")
    func concurrentSignUps() async throws {
        let fixture = PoolFixture()
        let pool = fixture.pool
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    do {
                        _ = try pool.signUp(
                            clientID: PoolFixture.appClient, username: "same@example.com",
                            password: PoolFixture.password, attributes: [])
                        return "ok"
                    } catch {
                        return error.type
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == "ok" }.count == 1)
        #expect(outcomes.filter { $0 == "UsernameExistsException" }.count == 7)
        #expect(pool.snapshot.users.count == 1)
    }

    @Test("the snapshot keeps no password, code-free hashes only, and restores a pool that signs the user in")
    func snapshot() throws {
        let fixture = PoolFixture()
        try fixture.confirmedUser("lee@example.com")
        let tokens = try fixture.signIn("lee@example.com")
        let text = fixture.pool.snapshot.json.jsonString
        #expect(!text.contains(PoolFixture.password))
        #expect(!text.contains(try #require(tokens.refreshToken)))
        #expect(!text.contains(tokens.accessToken))
        let restored = PoolFixture(snapshot: try UserPoolSnapshot(json: try JSONParser.parse(Array(text.utf8))))
        _ = try restored.signIn("lee@example.com")
        #expect(try restored.pool.getUser(accessToken: tokens.accessToken).email == "lee@example.com")
    }

    @Test("PBKDF2 hashes: salted (two hashes of one password differ), and only the password matches")
    func hashing() {
        var generator = SystemRandomNumberGenerator()
        let first = PasswordHash(password: PoolFixture.password, rounds: 210_000, using: &generator)
        let second = PasswordHash(password: PoolFixture.password, rounds: 210_000, using: &generator)
        #expect(first.hash != second.hash)
        #expect(first.salt != second.salt)
        #expect(first.rounds == 210_000)
        #expect(first.matches(PoolFixture.password))
        #expect(!first.matches("Correct-Horse-9batterY"))
    }
}

extension Error {
    fileprivate var type: String { (self as? CognitoError)?.type ?? "\(self)" }
}
