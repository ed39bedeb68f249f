import EmulatorKit
import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime
import Testing

/// A token's payload, read without verifying it.
func payload(of token: String) throws -> JSONValue {
    let parts = token.split(separator: ".")
    try #require(parts.count == 3, "not a JWT: \(token)")
    var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    text += String(repeating: "=", count: (4 - text.count % 4) % 4)
    let data = try #require(Data(base64Encoded: text))
    return try JSONParser.parse(Array(data))
}

/// The token use the deployed stack accepts: `INKRA_TOKEN_USE` in template.yaml, with every
/// occurrence (the Globals', and any function's override) required to agree.
func deployedTokenUse() throws -> String {
    let values = try TemplateText().lines.compactMap { line -> String? in
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("INKRA_TOKEN_USE:") else { return nil }
        return trimmed.dropFirst("INKRA_TOKEN_USE:".count).trimmingCharacters(in: .whitespaces)
    }
    try #require(!values.isEmpty, "template.yaml sets no INKRA_TOKEN_USE")
    try #require(Set(values).count == 1, "template.yaml sets INKRA_TOKEN_USE to \(values)")
    return values[0]
}

/// Development tokens as `inkra-emulator token`, `serve` and `replay` mint and accept them: the
/// token use template.yaml deploys, and exactly Cognito's claims for it:
/// - https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-the-id-token.html
/// - https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-the-access-token.html
/// - https://docs.aws.amazon.com/cognito/latest/developerguide/user-pool-lambda-pre-token-generation.html
///   (only this trigger adds custom attributes to an access token; template.yaml has none).
@Suite("Development tokens: Cognito's claim sets, template.yaml's token use")
struct DevelopmentTokenTests {
    static let when = Timestamp(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z

    static let idClaims: Set<String> = [
        "sub", "iss", "aud", "token_use", "auth_time", "exp", "iat", "jti", "origin_jti", "event_id",
        "cognito:username", "email", "email_verified",
    ]
    static let accessClaims: Set<String> = [
        "sub", "iss", "client_id", "token_use", "scope", "auth_time", "exp", "iat", "jti", "origin_jti", "event_id",
        "username",
    ]

    static func mint(_ claims: DevelopmentTokens.Claims) throws -> JSONValue {
        var generator = SystemRandomNumberGenerator()
        return try payload(
            of: DevelopmentTokens.mint(with: Repository.developmentKey, claims: claims, at: when, using: &generator))
    }

    @Test("The emulator's default token use is the one template.yaml deploys")
    func templateDefault() async throws {
        let deployed = try deployedTokenUse()
        #expect(EmulatorOptions.defaultTokenUse.rawValue == deployed)
        #expect(EmulatorOptions(clock: { Self.when }).tokenUse.rawValue == deployed)
        #expect(try EmulatorOptions(clock: { Self.when }).cognitoConfiguration().tokenUse.rawValue == deployed)
        #expect(DevelopmentTokens.Claims(sub: "u").tokenUse == deployed)
        #expect(try Self.mint(.init(sub: "u"))["token_use"] == .string(deployed))

        // The command line: `token` mints it, and `invoke` (whose flags `serve` and `replay` share)
        // accepts it and refuses the other kind.
        let minted = try await runEmulator(["token", "--sub", "template-user"])
        #expect(minted.status == 0, "\(minted.standardError)")
        let token = minted.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try payload(of: token)["token_use"] == .string(deployed))
        let other = deployed == "id" ? "access" : "id"
        let otherToken = try await runEmulator(["token", "--sub", "template-user", "--token-use", other])
        #expect(otherToken.status == 0, "\(otherToken.standardError)")
        for (candidate, allowed) in [(token, true), (otherToken.standardOutput, false)] {
            let event: JSONValue = [
                "type": "TOKEN",
                "authorizationToken": .string("Bearer \(candidate.trimmingCharacters(in: .whitespacesAndNewlines))"),
                "methodArn": "arn:aws:execute-api:us-east-1:123456789012:api/prod/GET/usage",
            ]
            let answer = try await runEmulator(["invoke", "authorizer"], input: event.jsonString)
            #expect(answer.status == (allowed ? 0 : 1), "\(answer.standardOutput)\(answer.standardError)")
        }
    }

    @Test("An id token carries Cognito's ID-token claims, name by name; the email defaults to <sub>@example.com")
    func idToken() throws {
        let plain = try Self.mint(.init(sub: "ana", tokenUse: "id"))
        #expect(Set(plain.object?.keys ?? []) == Self.idClaims)
        #expect(plain["email"] == "ana@example.com")
        #expect(plain["email_verified"] == true)
        #expect(plain["aud"] == .string(DevelopmentKey.clientID))
        #expect(plain["cognito:username"] == "ana")

        let full = try Self.mint(
            .init(sub: "ana", email: "a@example.com", tier: "premium", groups: ["beta"], quota: 40, tokenUse: "id"))
        #expect(
            Set(full.object?.keys ?? [])
                == Self.idClaims.union(["custom:subscription_tier", "custom:monthly_quota", "cognito:groups"]))
        #expect(full["email"] == "a@example.com")
        #expect(full["custom:subscription_tier"] == "premium")
        #expect(full["custom:monthly_quota"] == "40")
        #expect(full["cognito:groups"] == ["beta"])
    }

    @Test("An access token carries Cognito's access-token claims, name by name; --tier becomes the group")
    func accessToken() throws {
        let plain = try Self.mint(.init(sub: "ana", tokenUse: "access"))
        #expect(Set(plain.object?.keys ?? []) == Self.accessClaims)
        #expect(plain["client_id"] == .string(DevelopmentKey.clientID))
        #expect(plain["scope"] == "aws.cognito.signin.user.admin")
        #expect(plain["username"] == "ana")

        for (tier, group) in [("premium", "premium_tier"), ("free", "free_tier"), ("PREMIUM", "premium_tier")] {
            let tiered = try Self.mint(.init(sub: "ana", tier: tier, groups: ["beta"], tokenUse: "access"))
            #expect(Set(tiered.object?.keys ?? []) == Self.accessClaims.union(["cognito:groups"]))
            #expect(tiered["cognito:groups"] == ["beta", .string(group)])
        }
        let already = try Self.mint(.init(sub: "ana", tier: "premium", groups: ["premium_tier"], tokenUse: "access"))
        #expect(already["cognito:groups"] == ["premium_tier"])
    }

    @Test(
        "What an access token cannot carry is refused, saying why",
        arguments: [
            (
                DevelopmentTokens.Claims(sub: "ana", quota: 12, tokenUse: "access"),
                "--quota cannot go in an access token"
            ),
            (DevelopmentTokens.Claims(sub: "ana", email: "a@example.com", tokenUse: "access"), "--email cannot go"),
            (DevelopmentTokens.Claims(sub: "ana", tier: "gold", tokenUse: "access"), "--tier gold cannot go"),
            (DevelopmentTokens.Claims(sub: "ana", tokenUse: "refresh"), "--token-use must be id or access"),
        ])
    func accessRefusals(claims: DevelopmentTokens.Claims, message: String) throws {
        #expect {
            try Self.mint(claims)
        } throws: {
            "\($0)".hasPrefix(message)
        }
        if claims.quota != nil || claims.tier != nil {
            #expect(throws: EmulatorError.self) { try claims.check() }
            do {
                try claims.check()
            } catch {
                #expect(error.message.contains("pre token generation trigger"), "\(error)")
                #expect(error.message.contains("template.yaml"), "\(error)")
            }
        }
    }

    @Test("inkra-emulator token: --tier on an access token is the group; --quota there is refused with the reason")
    func commandLine() async throws {
        let access = try await runEmulator(["token", "--sub", "cli", "--token-use", "access", "--tier", "premium"])
        #expect(access.status == 0, "\(access.standardError)")
        let claims = try payload(of: access.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(Set(claims.object?.keys ?? []) == Self.accessClaims.union(["cognito:groups"]))
        #expect(claims["cognito:groups"] == ["premium_tier"])

        let quota = try await runEmulator(["token", "--sub", "cli", "--token-use", "access", "--quota", "5"])
        #expect(quota.status != 0)
        #expect(quota.standardOutput.isEmpty)
        #expect(quota.standardError.contains("--quota cannot go in an access token"), "\(quota.standardError)")
        #expect(quota.standardError.contains("pre token generation trigger"), "\(quota.standardError)")

        let id = try await runEmulator(["token", "--sub", "cli", "--tier", "premium", "--quota", "5"])
        #expect(id.status == 0, "\(id.standardError)")
        let idClaims = try payload(of: id.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(
            Set(idClaims.object?.keys ?? [])
                == Self.idClaims.union(["custom:subscription_tier", "custom:monthly_quota"]))
    }
}
