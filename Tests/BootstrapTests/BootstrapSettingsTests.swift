import AWSServices
import EmulatorKit
import EmulatorServer
import Foundation
import HTTPText
import InkraJSON
import InkraTestSupport
import InkraTime
import OutboundHTTP
import Testing

/// Settings an owner changes without building a new zip (the tier limits, from the environment
/// or an SSM parameter) and a secret the configuration never holds (the model's key, from
/// Secrets Manager), read by the built `bootstrap` at start through the Runtime API.
@Suite("bootstrap: limits without a redeploy, and the model's key from Secrets Manager")
struct BootstrapSettingsTests {
    static let caller: JSONValue = ["principalId": "u1", "userId": "u1", "tier": "free"]

    /// Starts bootstrap as `function` with `settings`, hands it `event`, and returns its outcome
    /// (or its init failure) with what it printed.
    static func run(_ function: String, _ settings: [String: String], event: JSONValue) async throws -> (
        RuntimeOutcome, String
    ) {
        let (outcome, result) = try await BuiltBootstrap.invokeAsLambda(function, settings, event: event)
        return (outcome, result.standardError)
    }

    static func transport() -> HTTPClientTransport {
        HTTPClientTransport(client: OutboundHTTPClient())
    }

    static func usageEvent() -> JSONValue {
        ["httpMethod": "GET", "path": "/usage", "requestContext": ["authorizer": caller]]
    }

    static func body(_ outcome: RuntimeOutcome) throws -> JSONValue {
        guard case .response(let bytes) = outcome else { return .null }
        return try JSONParser.parse(JSONParser.parse(bytes)["body"]?.string ?? "null")
    }

    @Test("INKRA_LIMITS sets the tiers' limits; a malformed one stops start-up naming it and the field")
    func limitsFromEnvironment() async throws {
        let limits = #"{"free":{"monthly":7,"daily":4,"hourly":3}}"#
        let (outcome, log) = try await Self.run("checkUsage", ["INKRA_LIMITS": limits], event: Self.usageEvent())
        let body = try Self.body(outcome)
        #expect(body["limit"] == 7, "\(outcome) \(log)")
        #expect(body["daily"]?["limit"] == 4)
        #expect(body["hourly"]?["limit"] == 3)

        let (refused, _) = try await Self.run(
            "checkUsage", ["INKRA_LIMITS": #"{"free":{"monthly":"many"}}"#], event: Self.usageEvent())
        guard case .initializationFailed(_, let error) = refused else {
            Issue.record("a malformed INKRA_LIMITS did not stop start-up: \(refused)")
            return
        }
        let message = try JSONParser.parse(error)["errorMessage"]?.string ?? ""
        #expect(message.contains("INKRA_LIMITS"), "\(message)")
        #expect(message.contains("monthly"), "\(message)")
    }

    @Test(
        "A limits or JWKS file that cannot be read stops start-up, naming the setting, the path and the reason",
        arguments: [
            ("checkUsage", "INKRA_LIMITS_FILE", "/nonexistent/limits.json", "No such file or directory"),
            ("checkUsage", "INKRA_LIMITS_FILE", "/", "Is a directory"),
            ("authorizer", "INKRA_JWKS_FILE", "/nonexistent/jwks.json", "No such file or directory"),
        ])
    func unreadableFile(function: String, setting: String, path: String, reason: String) async throws {
        var settings = [setting: path]
        if function == "authorizer" {
            settings["COGNITO_USER_POOL_ID"] = "us-east-1_InkraTest"
            settings["COGNITO_CLIENT_IDS"] = "client"
            settings["INKRA_COGNITO_ISSUER"] = "ORIGINAL"
        }
        let (outcome, log) = try await Self.run(function, settings, event: Self.usageEvent())
        guard case .initializationFailed(_, let error) = outcome else {
            Issue.record("\(setting)=\(path) did not stop start-up: \(outcome) \(log)")
            return
        }
        let message = try JSONParser.parse(error)["errorMessage"]?.string ?? ""
        #expect(message.contains(setting) && message.contains(path) && message.contains(reason), "\(message)")
    }

    @Test(
        "INKRA_LIMITS_PARAMETER reads the limits from SSM at start; a missing parameter stops start-up",
        .enabled(if: MotoEndpoint.isAvailable, Comment(rawValue: MotoEndpoint.skipReason)))
    func limitsFromSSM() async throws {
        let endpoint = try await MotoEndpoint.quietURL()
        let aws = [
            "AWS_ENDPOINT_URL": endpoint.absoluteString, "AWS_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
        ]
        let name = "/inkra/limits-\(UUID().uuidString.prefix(8))"
        // A client of its own: the shared one's connections may all be busy with other suites.
        let ssm = try AWSJSONService.ssm(
            AWSSettings(environment: aws), transport: Self.transport(), now: { Timestamp.now })
        _ = try await ssm.call(
            "PutParameter",
            ["Name": .string(name), "Type": "String", "Value": #"{"free":{"monthly":9,"daily":5,"hourly":4}}"#],
            timeout: Patience.seconds)
        var settings = aws
        settings["INKRA_LIMITS_PARAMETER"] = name
        let (outcome, log) = try await Self.run("checkUsage", settings, event: Self.usageEvent())
        #expect(try Self.body(outcome)["limit"] == 9, "\(outcome) \(log)")

        settings["INKRA_LIMITS_PARAMETER"] = "/inkra/no-such-parameter"
        let (missing, _) = try await Self.run("checkUsage", settings, event: Self.usageEvent())
        guard case .initializationFailed(_, let error) = missing else {
            Issue.record("a missing parameter did not stop start-up: \(missing)")
            return
        }
        let message = try JSONParser.parse(error)["errorMessage"]?.string ?? ""
        #expect(message.contains("INKRA_LIMITS_PARAMETER") && message.contains("ParameterNotFound"), "\(message)")
    }

    @Test(
        "The model's key comes from Secrets Manager: the configuration holds only the secret's ARN",
        .enabled(if: MotoEndpoint.isAvailable, Comment(rawValue: MotoEndpoint.skipReason)))
    func keyFromSecretsManager() async throws {
        let endpoint = try await MotoEndpoint.quietURL()
        let aws = [
            "AWS_ENDPOINT_URL": endpoint.absoluteString, "AWS_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
        ]
        let secrets = try AWSJSONService.secretsManager(
            AWSSettings(environment: aws), transport: Self.transport(), now: { Timestamp.now })
        let created = try await secrets.call(
            "CreateSecret",
            ["Name": .string("inkra-llm-\(UUID().uuidString.prefix(8))"), "SecretString": "sk-from-the-vault"],
            timeout: Patience.seconds)
        let arn = try #require(created["ARN"]?.string)
        let model = try await StubHTTPServer { _ in
            let content = (1...3).map { "Question number \($0) about it?" }.joined(separator: "\n")
            return .json(200, (["choices": [["message": ["content": .string(content)]]]] as JSONValue).jsonString)
        }
        defer { model.shutdown() }
        var settings = aws
        settings["INKRA_LLM_BASE_URL"] = "http://127.0.0.1:\(model.port)/v1"
        settings["INKRA_LLM_MODEL"] = "test-model"
        settings["INKRA_LLM_API_KEY_SECRET_ARN"] = arn
        let event: JSONValue = [
            "httpMethod": "POST", "path": "/questions", "body": #"{"topic":"a vault","count":3}"#,
            "requestContext": ["authorizer": Self.caller],
        ]
        let (outcome, log) = try await Self.run("generateQuestions", settings, event: event)
        #expect(try Self.body(outcome)["questions"]?.array?.count == 3, "\(outcome) \(log)")
        let authorization = model.requests.first?.headers.first { $0.0.lowercased() == "authorization" }?.1
        #expect(authorization == "Bearer sk-from-the-vault")
        #expect(!log.contains("sk-from-the-vault"), "the key is never logged")
    }
}
