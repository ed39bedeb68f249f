import AWSServices
import EmulatorKit
import Foundation
import HTTPText
import InkraJSON
import InkraTestSupport
import InkraTime
import OutboundHTTP
import Testing

/// SSM, Secrets Manager and Cognito throttled between processes: the fault proxy stands between
/// the client (the built `bootstrap`, or the account deletion's Cognito client) and moto, and
/// answers chosen requests as the services answer when they throttle or fail — SSM's and Secrets
/// Manager's `ThrottlingException` ("Rate exceeded", HTTP 400; their API references' "Common
/// Errors"), Cognito's `TooManyRequestsException` (HTTP 400, AdminDeleteUser's reference) and an
/// HTTP 500 — then forwards the rest to moto. A throttled `GetParameter` in a burst of cold starts
/// no longer stops start-up; one that stays throttled stops it naming the error and the attempts.
@Suite(
    "SSM, Secrets Manager and Cognito retried through the fault proxy",
    .enabled(if: MotoEndpoint.isAvailable, Comment(rawValue: MotoEndpoint.skipReason)))
struct ThrottledServicesTests {
    static let throttled = DynamoDBFaultProxy.Fault.serviceError(
        status: 400, type: "ThrottlingException", message: "Rate exceeded")

    static func aws(_ moto: HTTPURL) -> [String: String] {
        [
            "AWS_ENDPOINT_URL": moto.absoluteString, "AWS_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
        ]
    }

    /// A parameter in moto holding limits of 9 a month, and its name.
    static func limitsParameter(_ moto: HTTPURL) async throws -> String {
        let name = "/inkra/limits-\(UUID().uuidString.prefix(8))"
        let ssm = try AWSJSONService.ssm(
            AWSSettings(environment: aws(moto)), transport: HTTPClientTransport(client: OutboundHTTPClient()),
            now: { Timestamp.now })
        _ = try await ssm.call(
            "PutParameter",
            ["Name": .string(name), "Type": "String", "Value": #"{"free":{"monthly":9,"daily":5,"hourly":4}}"#],
            timeout: Patience.seconds)
        return name
    }

    static let usageEvent: JSONValue = [
        "httpMethod": "GET", "path": "/usage",
        "requestContext": ["authorizer": ["principalId": "u1", "userId": "u1", "tier": "free"]],
    ]

    @Test("GetParameter throttled twice at start: bootstrap starts on the third attempt with the parameter's limits")
    func startsAfterThrottling() async throws {
        let moto = try await MotoEndpoint.quietURL()
        let name = try await Self.limitsParameter(moto)
        let proxy = try await DynamoDBFaultProxy(upstream: moto) { operation, number in
            operation == "GetParameter" && number <= 2 ? Self.throttled : nil
        }
        defer { proxy.shutdown() }
        var settings = Self.aws(moto)
        settings["AWS_ENDPOINT_URL_SSM"] = proxy.url.absoluteString
        settings["INKRA_LIMITS_PARAMETER"] = name
        let (outcome, result) = try await BuiltBootstrap.invoke("checkUsage", settings, event: Self.usageEvent)
        guard case .response(let bytes) = outcome else {
            Issue.record("a throttled GetParameter stopped start-up: \(outcome) \(result.standardError)")
            return
        }
        let body = try JSONParser.parse(JSONParser.parse(bytes)["body"]?.string ?? "null")
        #expect(body["limit"] == 9, "\(body)")
        #expect(proxy.count("GetParameter") == 3)
    }

    @Test("GetParameter throttled on every attempt: start-up stops after 5, naming the setting and the error")
    func stopsAfterTheBound() async throws {
        let moto = try await MotoEndpoint.quietURL()
        let name = try await Self.limitsParameter(moto)
        let proxy = try await DynamoDBFaultProxy(upstream: moto) { operation, _ in
            operation == "GetParameter" ? Self.throttled : nil
        }
        defer { proxy.shutdown() }
        var settings = Self.aws(moto)
        settings["AWS_ENDPOINT_URL_SSM"] = proxy.url.absoluteString
        settings["INKRA_LIMITS_PARAMETER"] = name
        let (outcome, _) = try await BuiltBootstrap.invoke("checkUsage", settings, event: Self.usageEvent)
        guard case .initializationFailed(_, let error) = outcome else {
            Issue.record("a parameter throttled every time did not stop start-up: \(outcome)")
            return
        }
        let message = try JSONParser.parse(error)["errorMessage"]?.string ?? ""
        #expect(message.contains("INKRA_LIMITS_PARAMETER"), "\(message)")
        #expect(message.contains("ThrottlingException: Rate exceeded (after 5 attempts)"), "\(message)")
        #expect(proxy.count("GetParameter") == 5)
    }

    @Test("GetSecretValue throttled twice, then answered")
    func secretAfterThrottling() async throws {
        let moto = try await MotoEndpoint.url()
        let direct = try AWSJSONService.secretsManager(
            AWSSettings(environment: Self.aws(moto)), transport: HTTPClientTransport(client: OutboundHTTPClient()),
            now: { Timestamp.now })
        let created = try await direct.call(
            "CreateSecret", ["Name": .string("inkra-\(UUID().uuidString.prefix(8))"), "SecretString": "s3cret"],
            timeout: Patience.seconds)
        let arn = try #require(created["ARN"]?.string)
        let proxy = try await DynamoDBFaultProxy(upstream: moto) { operation, number in
            operation == "GetSecretValue" && number <= 2 ? Self.throttled : nil
        }
        defer { proxy.shutdown() }
        var settings = Self.aws(moto)
        settings["AWS_ENDPOINT_URL_SECRETS_MANAGER"] = proxy.url.absoluteString
        var patient = AWSJSONService.Retries()
        patient.deadline = Patience.seconds
        let secrets = try AWSJSONService.secretsManager(
            AWSSettings(environment: settings), transport: HTTPClientTransport(client: OutboundHTTPClient()),
            retries: patient, now: { Timestamp.now })
        // Each attempt waits as the suites wait on moto, which queues a parallel run's requests:
        // an attempt that timed out would be a retry of its own, not one of the throttles'.
        let answer = try await secrets.call("GetSecretValue", ["SecretId": .string(arn)], timeout: Patience.seconds)
        #expect(answer["SecretString"]?.string == "s3cret")
        #expect(proxy.count("GetSecretValue") == 3)
    }

    @Test("AdminDeleteUser: throttled, then deleted; deleted but answered 500, then found gone")
    func cognitoDeletion() async throws {
        let pool = try await MotoCognito.pool()
        let ada = try await pool.createUser(email: "ada@example.com")
        let bob = try await pool.createUser(email: "bob@example.com")
        let proxy = try await DynamoDBFaultProxy(upstream: pool.endpoint) { operation, number in
            switch (operation, number) {
            case ("AdminDeleteUser", 1):
                .serviceError(status: 400, type: "TooManyRequestsException", message: "Too many requests")
            case ("AdminDeleteUser", 3): .appliedThenError(status: 500, type: "InternalErrorException")
            default: nil
            }
        }
        defer { proxy.shutdown() }
        var environment = pool.environment
        environment["AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER"] = proxy.url.absoluteString
        var patient = AWSJSONService.Retries()
        patient.deadline = MotoCognito.patience
        let admin = try CognitoUserAdmin(
            userPoolID: pool.userPoolID, aws: AWSSettings(environment: environment),
            transport: HTTPClientTransport(client: OutboundHTTPClient()), retries: patient, now: { Timestamp.now })
        #expect(try await admin.deleteUser(ada, timeout: MotoCognito.patience))
        #expect(try await pool.hasUser(ada) == false)
        // The deletion applied, its answer lost to a 500: the retry finds no such user.
        #expect(try await admin.deleteUser(bob, timeout: MotoCognito.patience) == false)
        #expect(try await pool.hasUser(bob) == false)
        #expect(proxy.count("AdminDeleteUser") == 4)
    }
}
