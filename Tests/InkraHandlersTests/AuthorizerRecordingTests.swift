import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTime
import InkraUsage
import Testing

/// What `INKRA_RECORD_EVENTS=1` keeps of an authorizer invocation (docs/configuration.md): its
/// decision, the claims it verified that decide the caller's limits (`sub`, `token_use`, `iat`,
/// `exp`, `cognito:groups`, the tier attributes, `custom:monthly_quota`) and why it refused —
/// claims only from a token whose signature and issuer were verified, the user as its keyed
/// pseudonym, and never its user id, email, username, client, identifiers or the token itself.
@Suite("authorizer recordings")
struct AuthorizerRecordingTests {
    let authorizer: Authorizer
    /// What the recorder keeps, keyed as a runtime outside Lambda keys it.
    let redaction = RecordingRedaction(secret: .development)

    init() throws { authorizer = try AuthorizerTests.authorizer() }

    /// The recording `bootstrap` writes for one invocation (as its `Recorder` builds it), its lines
    /// in both log formats, and the recording read back from its text line.
    func record(_ token: String) async throws -> (Authorizer.Examination, [String], Recording) {
        let examination = await authorizer.examined(AuthorizerTests.tokenEvent(token), context: AuthorizerTests.context)
        var recording = Recording(
            function: "authorizer", requestID: "auth-1", epochMilliseconds: 1_794_823_320_123,
            claims: examination.claims.map(redaction.claims), refusal: examination.refusal)
        switch examination.answer {
        case .success(let answer): recording.decision = redaction.decision(answer)
        case .failure(let error):
            recording.error = ["errorType": .string(error.errorType), "errorMessage": .string(error.errorMessage)]
        }
        let lines =
            RecordingLines.lines(for: recording, json: false, timestamp: "t")
            + RecordingLines.lines(for: recording, json: true, timestamp: "t")
        guard case .part(let part) = RecordingLines.read(lines[0]) else {
            Issue.record("not a recording line: \(lines[0])")
            return (examination, lines, recording)
        }
        let read = try #require(Recording(json: try JSONParser.parse(part.payload)))
        return (examination, lines, read)
    }

    @Test(
        "An accepted token's recording holds the claims that decide the limits, the user's pseudonym, no email or token"
    )
    func acceptedToken() async throws {
        let token = try AuthorizerTests.token(
            sub: "rec-user", groups: ["premium_tier", "beta"], tier: "premium", quota: "40")
        let (examination, lines, read) = try await record(token)
        #expect(examination.refusal == nil)
        let now = Int(AuthorizerTests.now.timeIntervalSince1970)
        #expect(
            read.claims
                == [
                    "sub": .string(redaction.user("rec-user")), "token_use": "id", "iat": .number(now - 60),
                    "exp": .number(now + 3600),
                    "cognito:groups": ["premium_tier", "beta"], "custom:subscription_tier": "premium",
                    "custom:monthly_quota": 40,
                ])
        #expect(read.decision?["effect"] == "Allow")
        #expect(read.decision?["principalId"] == .string(redaction.user("rec-user")))
        #expect(read.refusal == nil)
        let signature = String(token.split(separator: ".")[2])
        for line in lines {
            for secret in [token, signature, "rec-user", "app-client", "jti", "username"] {
                #expect(!line.contains(secret), "a line holds \"\(secret)\": \(line)")
            }
        }
    }

    @Test("A blocked user's recording holds the group that denied it, and says why")
    func blockedUser() async throws {
        let (_, _, read) = try await record(try AuthorizerTests.token(sub: "rec-blocked", groups: ["blocked"]))
        #expect(read.decision?["effect"] == "Deny")
        #expect(read.refusal == "blocked")
        #expect(read.claims?["cognito:groups"] == ["blocked"])
    }

    @Test("A token refused only for its expiry keeps its verified claims and the reason expired")
    func expiredToken() async throws {
        let (examination, _, read) = try await record(
            try AuthorizerTests.token(sub: "rec-late", quota: "7", expires: -30))
        #expect(examination.answer == .failure(.unauthorized))
        #expect(read.refusal == "expired")
        #expect(read.error?["errorMessage"] == "Unauthorized")
        #expect(read.claims?["sub"] == .string(redaction.user("rec-late")))
        #expect(read.claims?["custom:monthly_quota"] == 7)
        #expect(read.claims?["exp"] == .number(Int(AuthorizerTests.now.timeIntervalSince1970) - 30))
    }

    @Test("A forged, foreign or unsigned-by-the-pool token records its refusal reason and no claim")
    func unverifiedTokens() async throws {
        let parts = try AuthorizerTests.token(sub: "victim").split(separator: ".")
        let forgedPayload = Data(#"{"sub":"admin","token_use":"id","custom:monthly_quota":"999"}"#.utf8)
            .base64EncodedString().replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        let forged = "\(parts[0]).\(forgedPayload).\(parts[2])"
        // Signed by the pool's key, but for another pool: the signature verifies, the issuer does not.
        let foreign = try AuthorizerTests.token(
            sub: "outsider", issuer: "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Other")
        // Expired as well as forged: the signature is checked first, so the expiry never counts.
        let forgedExpired = try AuthorizerTests.token(sub: "victim", expires: -30).dropLast(4) + "AAAA"
        let cases: [(String, String)] = [
            (forged, "badSignature"), (foreign, "wrongIssuer"), (String(forgedExpired), "badSignature"),
        ]
        for (token, reason) in cases {
            let (examination, lines, read) = try await record(token)
            #expect(examination.claims == nil, "\(reason)")
            #expect(read.claims == nil, "\(reason)")
            #expect(read.refusal == reason)
            for line in lines {
                for secret in ["admin", "outsider", "victim", "999"] {
                    #expect(!line.contains(secret), "\(reason): a line holds \"\(secret)\": \(line)")
                }
            }
        }
    }

    @Test("A recording without claims reads back as before, and one with them keeps format version 1")
    func formatVersion() throws {
        let plain = Recording(
            function: "authorizer", requestID: "r", epochMilliseconds: 1, decision: ["effect": "Allow"])
        #expect(plain.json["claims"] == nil && plain.json["refusal"] == nil)
        var withClaims = plain
        withClaims.claims = ["sub": "u", "exp": 2]
        withClaims.refusal = "expired"
        #expect(withClaims.json["v"] == 1)
        #expect(Recording(json: withClaims.json) == withClaims)
        #expect(Recording(json: plain.json) == plain)
    }
}
