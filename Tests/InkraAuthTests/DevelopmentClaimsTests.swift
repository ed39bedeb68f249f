import Foundation
import InkraAuth
import InkraJSON
import InkraTime
import Testing

/// A seedable generator (SplitMix64), so minted identifiers are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Development tokens carry exactly the claims Cognito puts in a user pool's tokens, held to AWS's
/// documentation rather than to any emulator of Cognito:
/// - ID token: https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-the-id-token.html
///   (sub, iss, aud, token_use "id", auth_time, exp, iat, jti, origin_jti, event_id,
///   cognito:username, email, email_verified, the user's custom attributes as strings, and
///   cognito:groups when the user is in a group);
/// - access token: https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-the-access-token.html
///   (sub, iss, client_id, token_use "access", scope "aws.cognito.signin.user.admin", auth_time,
///   exp, iat, jti, origin_jti, event_id, username, and cognito:groups): no aud, no email, no custom
///   attributes, which only a pre token generation trigger could add
///   (https://docs.aws.amazon.com/cognito/latest/developerguide/user-pool-lambda-pre-token-generation.html),
///   and template.yaml's pool has none.
@Suite("Development claims: Cognito's claim sets")
struct DevelopmentClaimsTests {
    static func claims(_ use: String) -> DevelopmentClaims {
        var generator = SeededGenerator(state: 7)
        return DevelopmentClaims(
            sub: "0f6c1f8e-user", tokenUse: use, clientId: "client-a", issuer: issuer,
            issuedAt: now, expiresAt: now.addingTimeInterval(3600), using: &generator)
    }

    @Test("An ID token: Cognito's ID-token claims, name by name")
    func idToken() throws {
        var claims = Self.claims("id")
        claims.email = "ana@example.com"
        claims.subscriptionTier = "premium"
        claims.monthlyQuota = "40"
        claims.groups = ["premium_tier"]
        let payload = try #require(try claims.payload().object)
        #expect(
            Set(payload.keys) == [
                "sub", "iss", "aud", "token_use", "auth_time", "exp", "iat", "jti", "origin_jti", "event_id",
                "cognito:username", "email", "email_verified", "custom:subscription_tier", "custom:monthly_quota",
                "cognito:groups",
            ])
        #expect(payload["token_use"] == "id")
        #expect(payload["aud"] == "client-a")
        #expect(payload["cognito:username"] == "0f6c1f8e-user")
        #expect(payload["email_verified"] == true)
        #expect(payload["custom:monthly_quota"] == "40")  // a string, as Cognito writes custom attributes
        #expect(payload["cognito:groups"] == ["premium_tier"])
        #expect(payload["auth_time"] == .number(Int(now.timeIntervalSince1970)))
        #expect(payload["exp"] == .number(Int(now.timeIntervalSince1970) + 3600))
    }

    @Test("An ID token of a user in no group with no custom attribute leaves them out")
    func idTokenPlain() throws {
        var claims = Self.claims("id")
        claims.email = "ana@example.com"
        let payload = try #require(try claims.payload().object)
        #expect(
            Set(payload.keys) == [
                "sub", "iss", "aud", "token_use", "auth_time", "exp", "iat", "jti", "origin_jti", "event_id",
                "cognito:username", "email", "email_verified",
            ])
    }

    @Test("An access token: Cognito's access-token claims, name by name")
    func accessToken() throws {
        var claims = Self.claims("access")
        claims.groups = ["premium_tier"]
        let payload = try #require(try claims.payload().object)
        #expect(
            Set(payload.keys) == [
                "sub", "iss", "client_id", "token_use", "scope", "auth_time", "exp", "iat", "jti", "origin_jti",
                "event_id", "username", "cognito:groups",
            ])
        #expect(payload["token_use"] == "access")
        #expect(payload["client_id"] == "client-a")
        #expect(payload["scope"] == "aws.cognito.signin.user.admin")
        #expect(payload["username"] == "0f6c1f8e-user")
        #expect(try Self.claims("access").payload()["cognito:groups"] == nil)
        // The older tier attribute, when a user has it (replay signs recorded ones).
        var older = Self.claims("id")
        older.customTier = "premium"
        #expect(try older.payload()["custom:tier"] == "premium")
    }

    @Test(
        "An access token refuses an email or a custom attribute, saying why",
        arguments: ["email", "custom:subscription_tier", "custom:tier", "custom:monthly_quota"])
    func accessTokenRefusals(claim: String) throws {
        var claims = Self.claims("access")
        switch claim {
        case "email": claims.email = "ana@example.com"
        case "custom:subscription_tier": claims.subscriptionTier = "premium"
        case "custom:tier": claims.customTier = "premium"
        default: claims.monthlyQuota = "40"
        }
        #expect {
            try claims.payload()
        } throws: {
            let refusal = $0 as? AuthError
            return refusal?.code == .unsupportedClaim
                && refusal?.message.hasPrefix("\(claim) cannot be in an access token") == true
        }
        if claim != "email" {
            #expect(throws: DevelopmentClaims.unsupported(claim, DevelopmentClaims.noCustomAttributes)) {
                try claims.payload()
            }
            #expect(DevelopmentClaims.noCustomAttributes.contains("pre token generation trigger"))
        }
    }

    @Test("jti, origin_jti and event_id are lower-case version 4 UUIDs, drawn from the generator")
    func identifiers() throws {
        let claims = Self.claims("id")
        let again = Self.claims("id")
        #expect(claims.jti == again.jti)
        #expect(Set([claims.jti, claims.originJti, claims.eventId]).count == 3)
        for identifier in [claims.jti, claims.originJti, claims.eventId] {
            #expect(UUID(uuidString: identifier) != nil, "\(identifier)")
            #expect(identifier == identifier.lowercased())
            #expect(Array(identifier)[14] == "4")
        }
    }

    @Test("A token signed from them verifies and reads back as the verifier sees Cognito's")
    func verifies() async throws {
        var claims = Self.claims("id")
        claims.email = "ana@example.com"
        claims.monthlyQuota = "40"
        claims.groups = ["premium_tier"]
        let read = try await verifier(clientIds: ["client-a"], tokenUse: .id).verify(try testSigner.sign(claims))
        #expect(read.subject == "0f6c1f8e-user")
        #expect(read.email == "ana@example.com")
        #expect(read.monthlyQuota == 40)
        #expect(read.tier == .premium)
    }
}
