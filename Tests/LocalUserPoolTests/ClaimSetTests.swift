import Foundation
import InkraJSON
import Synchronization
import Testing

@testable import LocalUserPool

/// The claim sets of "Understanding the identity (ID) token" and "Understanding the access token"
/// in the Amazon Cognito developer guide, for a pool without a pre token generation trigger.
@Suite("Token claim sets: exactly Cognito's, name by name")
struct ClaimSetTests {
    @Test("the id token carries exactly Cognito's id-token claims with the user's attributes and groups")
    func idToken() throws {
        let fixture = PoolFixture()
        let sub = try fixture.confirmedUser("mia@example.com")
        try fixture.pool.adminUpdateUserAttributes(
            username: sub, attributes: [("custom:subscription_tier", "premium"), ("custom:monthly_quota", "250")])
        try fixture.pool.adminAddUserToGroup(username: sub, group: "premium_tier")
        try fixture.pool.adminAddUserToGroup(username: sub, group: "free_tier")
        let claims = try payload(of: try fixture.signIn("mia@example.com").idToken)
        #expect(
            Set(claims.keys) == [
                "sub", "iss", "aud", "token_use", "auth_time", "exp", "iat", "jti", "origin_jti", "event_id",
                "cognito:username", "cognito:groups", "email", "email_verified", "custom:subscription_tier",
                "custom:monthly_quota",
            ])
        #expect(claims["sub"] == .string(sub))
        #expect(claims["cognito:username"] == .string(sub))
        #expect(claims["iss"] == .string(PoolFixture.issuer))
        #expect(claims["aud"] == .string(PoolFixture.cliClient))
        #expect(claims["token_use"] == "id")
        #expect(claims["email"] == "mia@example.com")
        #expect(claims["email_verified"] == true)
        #expect(claims["custom:monthly_quota"] == "250")
        // Groups in precedence order, as Cognito lists them.
        #expect(claims["cognito:groups"] == ["premium_tier", "free_tier"])
        let issued = try #require(claims["iat"]?.int)
        #expect(claims["exp"]?.int == issued + 3600)
    }

    @Test("the access token carries no aud, email or custom attribute, and no groups when the user has none")
    func accessToken() throws {
        let fixture = PoolFixture()
        let sub = try fixture.confirmedUser("noah@example.com")
        try fixture.pool.adminUpdateUserAttributes(username: sub, attributes: [("custom:subscription_tier", "premium")])
        let tokens = try fixture.signIn("noah@example.com")
        let access = try payload(of: tokens.accessToken)
        #expect(
            Set(access.keys) == [
                "sub", "iss", "client_id", "token_use", "scope", "auth_time", "exp", "iat", "jti", "origin_jti",
                "event_id", "username",
            ])
        #expect(access["scope"] == "aws.cognito.signin.user.admin")
        #expect(access["username"] == .string(sub))
        #expect(access["client_id"] == .string(PoolFixture.cliClient))
        let id = try payload(of: tokens.idToken)
        #expect(id["cognito:groups"] == nil)
        // One sign-in: one event and origin, two tokens.
        #expect(access["event_id"] == id["event_id"])
        #expect(access["origin_jti"] == id["origin_jti"])
        #expect(access["jti"] != id["jti"])
    }

    @Test("the tokens name the development key and are RS256")
    func header() throws {
        let fixture = PoolFixture()
        try fixture.confirmedUser("olga@example.com")
        let token = try fixture.signIn("olga@example.com").idToken
        let header = String(token.split(separator: ".")[0])
        var text = header.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        let data = try #require(Data(base64Encoded: text))
        let object = try #require(try JSONParser.parse(Array(data)).object)
        #expect(object["alg"] == "RS256")
        #expect(object["kid"] == "inkra-local-development-key")
    }
}
