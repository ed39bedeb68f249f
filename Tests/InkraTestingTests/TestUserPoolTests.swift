import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTesting
import InkraTime
import Testing

/// One pool for the suite: generating its RSA key takes a moment in a debug build.
private let pool: TestUserPool = {
    do { return try TestUserPool() } catch { fatalError("\(error)") }
}()

@Suite("TestUserPool")
struct TestUserPoolTests {
    let clock = ManualClock()

    @Test(
        "The authorizer answers each caller's ID token with the context ProxyEvent puts in their events",
        arguments: [
            Caller("ada"),
            Caller("bo", tier: .premium, email: "bo@example.com"),
            Caller("cy", groups: ["premium_tier", "beta"]),
            Caller("di", tier: .free, groups: ["premium_tier"]),
            Caller("ed", quota: 40),
        ])
    func idTokens(caller: Caller) async throws {
        let token = try pool.token(for: caller, at: clock.now)
        let authorizer = pool.authorizer(now: clock.closure)
        let answer = try AuthorizerResult(
            await authorizer.handle(AuthorizerEvent.token("Bearer \(token)"), context: clock.context))
        #expect(answer.isAllowed)
        #expect(answer.principalID == caller.sub)
        #expect(answer.context == caller.authorizerContext())
        let event = ProxyEvent.rest(caller: caller)
        #expect(answer.injected(into: ProxyEvent.rest()) == event)

        let simple = try AuthorizerResult(
            await authorizer.handle(AuthorizerEvent.http("Bearer \(token)"), context: clock.context))
        #expect(simple.isAllowed)
        #expect(simple.injected(into: ProxyEvent.http()) == ProxyEvent.http(caller: caller))
    }

    @Test("An ID token carries Cognito's ID claims; an access token no email and no custom attribute")
    func claimSets() throws {
        let bo = Caller("bo", tier: .premium, email: "bo@example.com")
        let id = try pool.claims(for: bo, at: clock.now)
        #expect(id["aud"] == .string(pool.clientID))
        #expect(id["token_use"] == "id")
        #expect(id["email"] == "bo@example.com")
        #expect(id["custom:subscription_tier"] == "premium")
        #expect(id["iss"] == .string(pool.issuer))
        #expect(id["exp"] == .number(Int(clock.now.timeIntervalSince1970) + 3600))

        let access = try pool.claims(for: bo, tokenUse: .access, at: clock.now)
        #expect(access["client_id"] == .string(pool.clientID))
        #expect(access["email"] == nil)
        #expect(access["custom:subscription_tier"] == nil)
        #expect(access["cognito:groups"] == ["premium_tier"])
        let refusal = #expect(throws: TestFailure.self) {
            try pool.claims(for: Caller("ed", quota: 40), tokenUse: .access, at: clock.now)
        }
        #expect(refusal?.description.hasPrefix("custom:monthly_quota cannot be in an access token") == true)
    }

    @Test("Claims changed and signed make an odd token: an expired one is refused, the same unchanged passes")
    func changedClaims() async throws {
        let authorizer = pool.authorizer(now: clock.closure)
        var claims = try pool.claims(for: Caller("fay"), at: clock.now)
        let fresh = try AuthorizerResult(
            await authorizer.handle(AuthorizerEvent.token("Bearer \(try pool.sign(claims))"), context: clock.context))
        #expect(fresh.isAllowed)
        claims.set(.number(Int(clock.now.timeIntervalSince1970) - 60), at: ["exp"])
        await #expect(throws: FunctionError.unauthorized) {
            try await authorizer.handle(
                AuthorizerEvent.token("Bearer \(try pool.sign(claims))"), context: clock.context)
        }
    }

    @Test("Access tokens pass an authorizer set to accept them, with the tier from the group")
    func accessTokens() async throws {
        let token = try pool.token(for: Caller("bo", tier: .premium), tokenUse: .access, at: clock.now)
        let idOnly = pool.authorizer(now: clock.closure)
        await #expect(throws: FunctionError.unauthorized) {
            try await idOnly.handle(AuthorizerEvent.token("Bearer \(token)"), context: clock.context)
        }
        let accepting = pool.authorizer(tokenUse: .access, now: clock.closure)
        let answer = try AuthorizerResult(
            await accepting.handle(AuthorizerEvent.token("Bearer \(token)"), context: clock.context))
        #expect(answer.context["tier"] == "premium")
    }

    @Test("Expired, foreign and blocked: 401, 401 and a Deny policy")
    func refusals() async throws {
        let authorizer = pool.authorizer(now: clock.closure)
        let token = try pool.token(for: Caller("ada"), at: clock.now, lifetime: .seconds(60))
        // Past its `exp` and the deployed authorizer's 5 s of clock skew.
        clock.advance(by: .seconds(66))
        await #expect(throws: FunctionError.unauthorized) {
            try await authorizer.handle(AuthorizerEvent.request("Bearer \(token)"), context: clock.context)
        }
        let other = try TestUserPool(poolID: "eu-west-1_Other")
        #expect(other.issuer == "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Other")
        let foreign = try other.token(for: Caller("ada"), at: clock.now)
        await #expect(throws: FunctionError.unauthorized) {
            try await authorizer.handle(AuthorizerEvent.token("Bearer \(foreign)"), context: clock.context)
        }
        let blocked = try pool.token(for: Caller("mo", groups: ["blocked"]), at: clock.now)
        let denied = try AuthorizerResult(
            await authorizer.handle(AuthorizerEvent.token("Bearer \(blocked)"), context: clock.context))
        #expect(!denied.isAllowed)
        let simple = try AuthorizerResult(
            await authorizer.handle(AuthorizerEvent.http("Bearer \(blocked)"), context: clock.context))
        #expect(!simple.isAllowed)
        await #expect(throws: FunctionError.unauthorized) {
            try await authorizer.handle(AuthorizerEvent.token(nil), context: clock.context)
        }
    }

    @Test("The JWKS holds the pool's public key only")
    func jwks() throws {
        let document = try JSONParser.parse(Array(pool.jwks))
        let key = try #require(document["keys"]?.array?.first)
        #expect(key["kid"] == "inkra-test-key")
        #expect(key["kty"] == "RSA")
        #expect(key["d"] == nil)
    }
}
