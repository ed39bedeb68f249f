import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTime
import InkraUsage
import Testing

/// One signing key for the module's authorizer suites: RSA key generation is slow in debug builds.
let authorizerSigner: TokenSigner = {
    do { return try TokenSigner.generate(kid: "test-key") } catch { fatalError("\(error)") }
}()

@Suite("authorizer")
struct AuthorizerTests {
    static let issuer = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_TestPool"
    static let now = instant("2026-03-10T10:00:00Z")
    /// The invocations' context: at ``now``.
    static let context = InvocationContext(time: now)

    /// An authorizer configured as template.yaml deploys it: ID tokens (the configuration's default).
    let authorizer: Authorizer

    init() throws {
        authorizer = try Self.authorizer()
    }

    static func authorizer(tokenUse: TokenUse? = nil) throws -> Authorizer {
        let configuration =
            tokenUse.map { CognitoConfiguration(issuer: issuer, clientIds: ["app-client"], tokenUse: $0) }
            ?? CognitoConfiguration(issuer: issuer, clientIds: ["app-client"])
        let verifier = TokenVerifier(
            configuration: configuration, keys: try JWKSKeySource(jwks: authorizerSigner.jwks), now: { now })
        return Authorizer(verifier: verifier)
    }

    /// A token with Cognito's claims: an ID token (email, custom attributes) unless `use` is access
    /// (no email, no custom attributes; groups only).
    static func token(
        sub: String = "user-1",
        use: TokenUse = .id,
        groups: [String] = [],
        tier: String? = nil,
        quota: String? = nil,
        issuer: String = issuer,
        expires: TimeInterval = 3600
    ) throws -> String {
        var claims = DevelopmentClaims(
            sub: sub,
            tokenUse: use.rawValue,
            clientId: "app-client",
            issuer: issuer,
            issuedAt: now.addingTimeInterval(-60),
            expiresAt: now.addingTimeInterval(expires)
        )
        if use == .id {
            claims.email = "\(sub)@example.com"
            claims.subscriptionTier = tier
            claims.monthlyQuota = quota
        }
        claims.groups = groups
        return try authorizerSigner.sign(claims)
    }

    static func tokenEvent(_ token: String) -> JSONValue {
        Fixtures.load("token-authorizer.json").setting(.string("Bearer \(token)"), at: ["authorizationToken"])
    }

    @Test("A valid token gets an Allow policy widened to the stage, with the caller's context")
    func allow() async throws {
        let result = try await authorizer.handle(Self.tokenEvent(try Self.token()), context: Self.context)
        #expect(
            result
                == [
                    "principalId": "user-1",
                    "policyDocument": [
                        "Version": "2012-10-17",
                        "Statement": [
                            [
                                "Action": "execute-api:Invoke", "Effect": "Allow",
                                "Resource": "arn:aws:execute-api:us-east-1:123456789012:example/prod/*/*",
                            ]
                        ],
                    ],
                    // The tier, never its limits: the functions hold those (API Gateway caches this).
                    "context": ["userId": "user-1", "email": "user-1@example.com", "tier": "free"],
                ]
        )
    }

    @Test("Premium and quota claims shape the context; a tier's limit is never in it")
    func premiumContext() async throws {
        let premium = try await authorizer.handle(
            Self.tokenEvent(try Self.token(groups: ["premium_tier"])), context: Self.context)
        #expect(premium["context"]?["tier"] == "premium")
        #expect(premium["context"]?["quota"] == nil)
        let quota = try await authorizer.handle(Self.tokenEvent(try Self.token(quota: "12")), context: Self.context)
        #expect(quota["context"]?["quota"] == 12)
    }

    @Test("By default, as template.yaml deploys it, ID tokens are accepted and access tokens refused")
    func defaultTokenUse() async throws {
        let id = try await authorizer.handle(Self.tokenEvent(try Self.token()), context: Self.context)
        #expect(id["policyDocument"]?["Statement"]?.array?.first?["Effect"] == "Allow")
        await #expect(throws: FunctionError.unauthorized) {
            try await authorizer.handle(Self.tokenEvent(try Self.token(use: .access)), context: Self.context)
        }
        let accessOnly = try Self.authorizer(tokenUse: .access)
        await #expect(throws: FunctionError.unauthorized) {
            try await accessOnly.handle(Self.tokenEvent(try Self.token()), context: Self.context)
        }
    }

    @Test(
        "Access tokens, which carry no custom attributes, get their tier from the plan's groups",
        arguments: [
            ([], "free"), (["free_tier"], "free"), (["premium_tier"], "premium"),
            (["free_tier", "premium_tier"], "premium"),
        ] as [([String], JSONValue)])
    func accessTokenTier(groups: [String], tier: JSONValue) async throws {
        let authorizer = try Self.authorizer(tokenUse: .access)
        let result = try await authorizer.handle(
            Self.tokenEvent(try Self.token(use: .access, groups: groups)), context: Self.context)
        #expect(result["policyDocument"]?["Statement"]?.array?.first?["Effect"] == "Allow")
        #expect(result["context"] == ["userId": "user-1", "tier": tier])
    }

    @Test(
        "custom:subscription_tier decides when present; otherwise premium_tier beats free_tier",
        arguments: [
            ("free", ["premium_tier"], "free"), ("premium", ["free_tier"], "premium"),
            (nil, ["free_tier", "premium_tier"], "premium"), (nil, ["free_tier"], "free"),
            ("gold", ["premium_tier"], "free"),
        ] as [(String?, [String], JSONValue)])
    func tierPrecedence(attribute: String?, groups: [String], tier: JSONValue) async throws {
        let result = try await authorizer.handle(
            Self.tokenEvent(try Self.token(groups: groups, tier: attribute)), context: Self.context)
        #expect(result["context"]?["tier"] == tier)
    }

    @Test("A REQUEST authorizer event reads the Authorization header, whatever its case")
    func requestEvent() async throws {
        let token = try Self.token()
        let event = Fixtures.load("request-authorizer.json").setting(
            .string("Bearer \(token)"), at: ["headers", "authorization"])
        let result = try await authorizer.handle(event, context: Self.context)
        #expect(
            result["policyDocument"]?["Statement"]?.array?.first?["Resource"]
                == "arn:aws:execute-api:us-east-1:123456789012:abcdef123/test/*/*")
        #expect(result["context"]?["userId"] == "user-1")
    }

    @Test(
        "The policy's resource is the method ARN widened to its stage; an ARN that is not API Gateway's is refused",
        arguments: [
            (
                "arn:aws:execute-api:us-east-1:123456789012:abc/prod/POST/questions",
                "arn:aws:execute-api:us-east-1:123456789012:abc/prod/*/*"
            ),
            (
                "arn:aws:execute-api:eu-west-1:1:api/$default/GET/a/b/c",
                "arn:aws:execute-api:eu-west-1:1:api/$default/*/*"
            ),
            ("arn:aws:execute-api:us-east-1:1:api/prod", "arn:aws:execute-api:us-east-1:1:api/prod/*/*"),
            (
                "arn:aws-cn:execute-api:cn-north-1:1:api/prod/GET/x:y",
                "arn:aws-cn:execute-api:cn-north-1:1:api/prod/*/*"
            ),
            ("arn:aws:lambda:us-east-1:1:api/prod/GET/x", nil),
            ("nra:aws:execute-api:us-east-1:1:api/prod/GET/x", nil),
            ("arn:aws:execute-api:us-east-1:1:api", nil),
            ("arn:aws:execute-api:us-east-1:1:/prod/GET/x", nil),
            ("arn:aws:execute-api:us-east-1:1:api//GET/x", nil),
            ("arn:aws:execute-api:us-east-1", nil),
            ("", nil),
        ] as [(String, String?)]
    )
    func stageWideResource(methodArn: String, resource: String?) async throws {
        let event = Self.tokenEvent(try Self.token()).setting(.string(methodArn), at: ["methodArn"])
        if let resource {
            let result = try await authorizer.handle(event, context: Self.context)
            #expect(result["policyDocument"]?["Statement"]?.array?.first?["Resource"] == .string(resource))
        } else {
            await #expect(throws: FunctionError.unauthorized) {
                try await authorizer.handle(event, context: Self.context)
            }
        }
    }

    @Test("HTTP API payload 2.0 gets simple responses")
    func httpV2() async throws {
        let event: JSONValue = [
            "version": "2.0", "type": "REQUEST",
            "routeArn": "arn:aws:execute-api:us-east-1:123456789012:abcdef123/$default/POST/questions",
            "identitySource": [.string("Bearer \(try Self.token())")], "routeKey": "POST /questions",
        ]
        let allowed = try await authorizer.handle(event, context: Self.context)
        #expect(allowed["isAuthorized"] == true)
        #expect(allowed["context"]?["userId"] == "user-1")
        let refused = try await authorizer.handle(
            event.setting(["Bearer nope"], at: ["identitySource"]), context: Self.context)
        #expect(refused == ["isAuthorized": false])
    }

    @Test("HTTP API payload 1.0 gets a policy")
    func httpV1() async throws {
        let event: JSONValue = [
            "version": "1.0", "type": "REQUEST",
            "methodArn": "arn:aws:execute-api:us-east-1:123456789012:abcdef123/$default/GET/usage",
            "identitySource": .string(try Self.token()),
        ]
        let result = try await authorizer.handle(event, context: Self.context)
        #expect(result["principalId"] == "user-1")
    }

    @Test("A member of the blocked group gets a Deny policy")
    func blocked() async throws {
        let result = try await authorizer.handle(
            Self.tokenEvent(try Self.token(groups: ["blocked"])), context: Self.context)
        #expect(result["policyDocument"]?["Statement"]?.array?.first?["Effect"] == "Deny")
    }

    @Test(
        "Bad tokens fail the invocation with exactly Unauthorized",
        arguments: ["", "garbage", "Bearer ", "a.b", "a.b.c"]
    )
    func garbage(token: String) async throws {
        await #expect(throws: FunctionError.unauthorized) {
            try await authorizer.handle(
                Self.tokenEvent(token).setting(.string(token), at: ["authorizationToken"]), context: Self.context)
        }
    }

    @Test("Expired, foreign-issuer and tampered tokens are Unauthorized")
    func rejected() async throws {
        // A second past the clock skew the authorizer tolerates by default (INKRA_CLOCK_SKEW).
        let expired = try Self.token(expires: -CognitoConfiguration.defaultClockTolerance - 1)
        let foreign = try Self.token(issuer: "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Other")
        let parts = try Self.token().split(separator: ".")
        let forgedPayload = Data(#"{"sub":"admin","token_use":"id"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        let tampered = "\(parts[0]).\(forgedPayload).\(parts[2])"
        for token in [expired, foreign, tampered] {
            await #expect(throws: FunctionError.unauthorized) {
                try await authorizer.handle(Self.tokenEvent(token), context: Self.context)
            }
        }
    }

    @Test("A missing token or method ARN is Unauthorized, and a non-object event says why")
    func malformedEvents() async throws {
        await #expect(throws: FunctionError.unauthorized) {
            try await authorizer.handle(
                ["type": "TOKEN", "methodArn": "arn:aws:execute-api:r:a:api/stage/GET/x"], context: Self.context)
        }
        await #expect(throws: FunctionError.unauthorized) {
            try await authorizer.handle(
                ["type": "TOKEN", "authorizationToken": .string(try Self.token())], context: Self.context)
        }
        do {
            _ = try await authorizer.handle("just a string", context: Self.context)
            Issue.record("expected a failure")
        } catch {
            #expect(error.errorType == "InvalidEvent")
        }
    }
}
