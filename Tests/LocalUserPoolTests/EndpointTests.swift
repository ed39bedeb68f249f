import EmulatorKit
import EmulatorServer
import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTesting
import Testing

@testable import LocalUserPool

/// The JSON protocol as the AWS SDKs speak it to Cognito (the Cognito API Reference's "Common
/// Errors" and each operation's page): `X-Amz-Target: AWSCognitoIdentityProviderService.<Op>`,
/// `application/x-amz-json-1.1`, errors as `{"__type", "message"}` with status 400.
@Suite("The Cognito endpoint, the authorizer's trust in the pool, and the pool in --state")
struct EndpointTests {
    private func call(_ endpoint: CognitoEndpoint, _ operation: String, _ body: JSONValue) async -> (Int, JSONValue) {
        let response = await endpoint.respond(
            LocalHTTPRequest(
                method: "POST", path: "/",
                headers: [
                    ("X-Amz-Target", "AWSCognitoIdentityProviderService.\(operation)"),
                    ("Content-Type", "application/x-amz-json-1.1"),
                ], body: body.jsonBytes))
        #expect(response.header("Content-Type") == "application/x-amz-json-1.1")
        return (response.status, (try? JSONParser.parse(response.body)) ?? .null)
    }

    @Test("operations answer Cognito's JSON; errors carry __type and message with status 400")
    func protocolShape() async throws {
        let endpoint = CognitoEndpoint(pool: PoolFixture().pool)
        let (status, answer) = await call(
            endpoint, "SignUp",
            ["ClientId": "inkra-local-client", "Username": "pat@example.com", "Password": "Correct-Horse-9battery"])
        #expect(status == 200)
        #expect(answer["UserConfirmed"] == false)
        #expect(answer["CodeDeliveryDetails"]?["DeliveryMedium"] == "EMAIL")
        let (weak, error) = await call(
            endpoint, "SignUp", ["ClientId": "inkra-local-client", "Username": "q@example.com", "Password": "weak"])
        #expect(weak == 400)
        #expect(error["__type"] == "InvalidPasswordException")
        #expect(error["message"] == "Password did not conform with policy: Password not long enough")
        let (missing, missingError) = await call(endpoint, "ConfirmSignUp", ["ClientId": "inkra-local-client"])
        #expect(missing == 400)
        #expect(missingError["__type"] == "InvalidParameterException")
        let (_, unknown) = await call(endpoint, "DeleteUserPool", ["UserPoolId": "us-east-1_InkraLocal"])
        #expect(unknown["__type"] == "UnknownOperationException")
        let (_, otherPool) = await call(endpoint, "AdminGetUser", ["UserPoolId": "us-east-1_Other", "Username": "x"])
        #expect(otherPool["__type"] == "ResourceNotFoundException")
        let (_, pools) = await call(endpoint, "ListUserPools", ["MaxResults": 10])
        #expect(pools["UserPools"]?.array?.first?["Id"] == "us-east-1_InkraLocal")
        let (_, described) = await call(endpoint, "DescribeUserPool", ["UserPoolId": "us-east-1_InkraLocal"])
        #expect(described["UserPool"]?["Policies"]?["PasswordPolicy"]?["MinimumLength"] == 12)
        let garbage = await endpoint.respond(
            LocalHTTPRequest(
                method: "POST", path: "/", headers: [("X-Amz-Target", "AWSCognitoIdentityProviderService.SignUp")],
                body: Array("{not json".utf8)))
        #expect(garbage.status == 400)
        #expect(try JSONParser.parse(garbage.body)["__type"] == "SerializationException")
    }

    @Test("the JWKS and the OpenID configuration at the issuer's path")
    func wellKnown() async throws {
        let fixture = PoolFixture()
        let endpoint = CognitoEndpoint(pool: fixture.pool)
        let jwks = await endpoint.respond(
            LocalHTTPRequest(method: "GET", path: "/us-east-1_InkraLocal/.well-known/jwks.json"))
        #expect(jwks.status == 200)
        #expect(jwks.body == fixture.pool.jwks)
        let discovery = await endpoint.respond(
            LocalHTTPRequest(method: "GET", path: "/us-east-1_InkraLocal/.well-known/openid-configuration"))
        let document = try JSONParser.parse(discovery.body)
        #expect(document["issuer"] == .string(PoolFixture.issuer))
        #expect(document["jwks_uri"] == .string(PoolFixture.issuer + "/.well-known/jwks.json"))
        let missing = await endpoint.respond(LocalHTTPRequest(method: "GET", path: "/elsewhere"))
        #expect(missing.status == 404)
    }

    @Test("the stack's authorizer trusts the pool once told to, and still refuses another pool's token")
    func trust() async throws {
        let fixture = PoolFixture()
        try fixture.confirmedUser("quinn@example.com")
        let idToken = try fixture.signIn("quinn@example.com").idToken
        var options = EmulatorOptions(clock: { fixture.clock.now })
        options.developmentKey = PoolFixture.key
        let stack = try await EmulatorStack(options: options)
        func authorize(_ token: String) async -> String {
            let event: JSONValue = [
                "type": "TOKEN", "authorizationToken": .string("Bearer " + token),
                "methodArn": "arn:aws:execute-api:us-east-1:123456789012:api/dev/GET/usage",
            ]
            do {
                let answer = try await stack.handler(for: .authorizer).handle(event, context: stack.context())
                return answer["policyDocument"]?["Statement"]?.array?.first?["Effect"]?.string ?? "none"
            } catch {
                return "refused"
            }
        }
        #expect(await authorize(idToken) == "refused")
        stack.trustedPools.trust(
            CognitoConfiguration(
                issuer: PoolFixture.issuer, clientIds: ["inkra-local-client", "inkra-local-cli-client"], tokenUse: .id))
        #expect(await authorize(idToken) == "Allow")
        let foreign = PoolFixture()
        foreign.pool.issuer = "http://127.0.0.1:9229/us-east-1_Foreign"
        try foreign.confirmedUser("quinn@example.com")
        #expect(await authorize(try foreign.signIn("quinn@example.com").idToken) == "refused")
    }

    /// Both forms as the Amazon Cognito API reference, `IssuerConfigurationType`, documents them
    /// (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_IssuerConfigurationType.html).
    @Test(
        "serve's pool issues either Cognito issuer form; a stack set to the other form refuses its tokens",
        arguments: [IssuerForm.original, .updated])
    func issuerForms(form: IssuerForm) async throws {
        let fixture = PoolFixture(issuerForm: form)
        try fixture.confirmedUser("sam@example.com")
        let idToken = try fixture.signIn("sam@example.com").idToken
        let iss = try #require(CompactToken(idToken).payload["iss"]?.string)
        let host = form == .original ? "cognito-idp" : "issuer-cognito-idp"
        #expect(iss == "https://\(host).us-east-1.amazonaws.com/us-east-1_InkraLocal")
        // Discovery names the issuer, and the keys where this pool serves them.
        fixture.pool.keysURL = "http://127.0.0.1:9229/us-east-1_InkraLocal/.well-known/jwks.json"
        let discovery = await CognitoEndpoint(pool: fixture.pool).respond(
            LocalHTTPRequest(method: "GET", path: "/us-east-1_InkraLocal/.well-known/openid-configuration"))
        let document = try JSONParser.parse(discovery.body)
        #expect(document["issuer"] == .string(iss))
        #expect(document["jwks_uri"] == "http://127.0.0.1:9229/us-east-1_InkraLocal/.well-known/jwks.json")
        for stackForm in IssuerForm.allCases {
            var options = EmulatorOptions(clock: { fixture.clock.now })
            options.developmentKey = PoolFixture.key
            let stack = try await EmulatorStack(options: options)
            stack.trustedPools.trust(
                CognitoConfiguration(
                    region: "us-east-1", userPoolId: "us-east-1_InkraLocal", issuerForm: stackForm,
                    clientIds: ["inkra-local-client", "inkra-local-cli-client"], tokenUse: .id))
            let event: JSONValue = [
                "type": "TOKEN", "authorizationToken": .string("Bearer " + idToken),
                "methodArn": "arn:aws:execute-api:us-east-1:123456789012:api/dev/GET/usage",
            ]
            let effect: String
            do {
                let answer = try await stack.handler(for: .authorizer).handle(event, context: stack.context())
                effect = answer["policyDocument"]?["Statement"]?.array?.first?["Effect"]?.string ?? "none"
            } catch {
                effect = "refused"
            }
            #expect(effect == (stackForm == form ? "Allow" : "refused"), "stack \(stackForm), token \(form)")
        }
    }

    @Test("--state keeps the pool beside the table; an older file without a pool still loads")
    func stateFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pool-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("state.json")
        try Data(#"{"format":"inkra-emulator-state","version":1,"table":"inkra-usage","items":[]}"#.utf8).write(to: url)
        let state = StateFile(url: url, tableName: "inkra-usage")
        #expect(try state.load().isEmpty)
        #expect(try state.loadUserPool() == nil)
        let fixture = PoolFixture()
        try fixture.confirmedUser("rae@example.com")
        try state.save([], userPool: fixture.pool.snapshot)
        // A save without a pool (another command's) keeps the pool already in the file.
        try state.save([])
        let restored = try #require(try state.loadUserPool())
        #expect(restored.users.map(\.email) == ["rae@example.com"])
        try Data(#"{"format":"inkra-emulator-state","version":1,"table":"inkra-usage","items":[],"userPool":7}"#.utf8)
            .write(to: url)
        #expect(throws: EmulatorError.self) { try state.loadUserPool() }
    }
}
