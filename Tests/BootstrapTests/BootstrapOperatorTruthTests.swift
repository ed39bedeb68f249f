import AWSServices
import EmulatorKit
import Foundation
import HTTPText
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTesting
import InkraTime
import OutboundHTTP
import Testing

/// What an operator of template.yaml's stack sees of the built `bootstrap`: the limits parameter
/// under either spelling of its name, its limits changing in a warm sandbox, and the store's
/// failures counted by every function that uses it.
@Suite("bootstrap for the operator: the limits parameter, read again while warm; store failures counted")
struct BootstrapOperatorTruthTests {
    static let caller: JSONValue = ["principalId": "u1", "userId": "u1", "tier": "free"]

    /// `GET /usage`, received by API Gateway at `epochSeconds` (`INKRA_CLOCK=request-time` runs it then).
    static func usageEvent(at epochSeconds: Int) -> JSONValue {
        [
            "httpMethod": "GET", "path": "/usage",
            "requestContext": ["authorizer": caller, "requestTimeEpoch": .number(epochSeconds * 1000)],
        ]
    }

    static func statusAndBody(_ outcome: RuntimeOutcome) -> (Int?, JSONValue) {
        guard case .response(let bytes) = outcome, let answer = try? JSONParser.parse(bytes) else {
            return (nil, .null)
        }
        let body = (try? JSONParser.parse(answer["body"]?.string ?? "null")) ?? .null
        return (answer["statusCode"]?.int, body)
    }

    static func monthlyLimit(_ outcome: RuntimeOutcome) -> Int? { statusAndBody(outcome).1["limit"]?.int }

    static func aws(_ endpoint: HTTPURL) -> [String: String] {
        [
            "AWS_ENDPOINT_URL": endpoint.absoluteString, "AWS_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
        ]
    }

    static func put(_ name: String, _ value: String, _ endpoint: HTTPURL) async throws {
        // A client of its own: the shared one's connections may all be busy with other suites.
        let ssm = try AWSJSONService.ssm(
            AWSSettings(environment: aws(endpoint)), transport: HTTPClientTransport(client: OutboundHTTPClient()),
            now: { Timestamp.now })
        _ = try await ssm.call(
            "PutParameter", ["Name": .string(name), "Type": "String", "Value": .string(value), "Overwrite": true],
            timeout: Patience.seconds)
    }

    static func limits(monthly: Int) -> String { #"{"free":{"monthly":\#(monthly),"daily":5,"hourly":4}}"# }

    @Test(
        "The limits parameter is read under its name as SSM has it, with or without a hierarchy",
        .enabled(if: MotoEndpoint.isAvailable, Comment(rawValue: MotoEndpoint.skipReason)),
        arguments: ["inkra-limits-", "/inkra/limits-"])
    func parameterNames(prefix: String) async throws {
        let endpoint = try await MotoEndpoint.quietURL()
        let name = prefix + UUID().uuidString.prefix(8)
        try await Self.put(name, Self.limits(monthly: 9), endpoint)
        var settings = Self.aws(endpoint)
        settings["INKRA_LIMITS_PARAMETER"] = name
        let (outcome, result) = try await BuiltBootstrap.invoke(
            "checkUsage", settings, event: Self.usageEvent(at: 1_795_780_800))
        #expect(Self.monthlyLimit(outcome) == 9, "\(outcome) \(result.standardError)")
    }

    @Test(
        "A hierarchy's name without its leading slash stops start-up, saying so (SSM would refuse it)",
        .enabled(if: MotoEndpoint.isAvailable, Comment(rawValue: MotoEndpoint.skipReason)))
    func nameWithoutLeadingSlash() async throws {
        let endpoint = try await MotoEndpoint.quietURL()
        // moto keeps such a name; AWS's SSM does not: the runtime refuses it before asking.
        let name = "inkra/limits-" + UUID().uuidString.prefix(8)
        try await Self.put(name, Self.limits(monthly: 9), endpoint)
        var settings = Self.aws(endpoint)
        settings["INKRA_LIMITS_PARAMETER"] = name
        let (outcome, _) = try await BuiltBootstrap.invoke(
            "checkUsage", settings, event: Self.usageEvent(at: 1_795_780_800))
        guard case .initializationFailed(_, let body) = outcome else {
            Issue.record("started with \(name): \(outcome)")
            return
        }
        let message = try JSONParser.parse(body)["errorMessage"]?.string ?? ""
        #expect(message.contains("INKRA_LIMITS_PARAMETER") && message.contains("starts with '/'"), "\(message)")
    }

    @Test(
        "A limits change reaches a call whose authorizer answer API Gateway still caches",
        .enabled(if: MotoEndpoint.isAvailable, Comment(rawValue: MotoEndpoint.skipReason)))
    func limitsPastTheAuthorizerCache() async throws {
        let endpoint = try await MotoEndpoint.quietURL()
        let name = "/inkra/cached-" + UUID().uuidString.prefix(8)
        try await Self.put(name, Self.limits(monthly: 3), endpoint)
        let start = 1_795_780_800
        // The authorizer's answer for a free user's token, as API Gateway caches it (up to an
        // hour) and passes on to every call meanwhile: it names the tier, never a number.
        let pool = try TestUserPool()
        let instant = Timestamp(timeIntervalSince1970: TimeInterval(start))
        let token = try pool.token(for: Caller("cached-ada", email: "ada@example.com"), at: instant)
        let answer = try await pool.authorizer(now: { instant }).handle(
            AuthorizerEvent.token("Bearer \(token)"), context: InvocationContext(time: instant))
        let cached = try #require(answer["context"]?.object)
        #expect(cached["quota"] == nil, "the cached context names a limit: \(cached)")
        var authorizer = JSONValue.object(cached)
        authorizer.set(.string("cached-ada"), at: ["principalId"])
        func ask(at seconds: Int) -> JSONValue {
            [
                "httpMethod": "POST", "path": "/questions", "body": #"{"topic":"a harbour"}"#,
                "requestContext": ["authorizer": authorizer, "requestTimeEpoch": .number(seconds * 1000)],
            ]
        }
        var settings = Self.aws(endpoint)
        settings["INKRA_LIMITS_PARAMETER"] = name
        settings["INKRA_LIMITS_MAX_AGE"] = "60"
        settings["INKRA_CLOCK"] = "request-time"
        var statuses: [Int?] = []
        let result = try await BuiltBootstrap.session("generateQuestions", settings) { invoke in
            statuses.append(Self.statusAndBody(await invoke(ask(at: start))).0)
            // The owner lowers the free month to 1; past the max age the function holds the call
            // to it, with the same cached context.
            try await Self.put(name, Self.limits(monthly: 1), endpoint)
            statuses.append(Self.statusAndBody(await invoke(ask(at: start + 61))).0)
        }
        #expect(statuses == [200, 429], "\(result.standardError)")
    }

    @Test(
        "A warm sandbox reads the parameter again after INKRA_LIMITS_MAX_AGE; a broken value changes nothing",
        .enabled(if: MotoEndpoint.isAvailable, Comment(rawValue: MotoEndpoint.skipReason)))
    func limitsRefresh() async throws {
        let endpoint = try await MotoEndpoint.quietURL()
        let name = "/inkra/refresh-" + UUID().uuidString.prefix(8)
        try await Self.put(name, Self.limits(monthly: 9), endpoint)
        var settings = Self.aws(endpoint)
        settings["INKRA_LIMITS_PARAMETER"] = name
        settings["INKRA_LIMITS_MAX_AGE"] = "60"
        // Time comes from the events (API Gateway's requestTimeEpoch): nothing here waits.
        settings["INKRA_CLOCK"] = "request-time"
        let start = 1_795_780_800
        var seen: [Int?] = []
        let result = try await BuiltBootstrap.session("checkUsage", settings) { invoke in
            seen.append(Self.monthlyLimit(await invoke(Self.usageEvent(at: start))))
            try await Self.put(name, Self.limits(monthly: 12), endpoint)
            seen.append(Self.monthlyLimit(await invoke(Self.usageEvent(at: start + 59))))
            seen.append(Self.monthlyLimit(await invoke(Self.usageEvent(at: start + 60))))
            try await Self.put(name, "{not json SECRET-VALUE", endpoint)
            seen.append(Self.monthlyLimit(await invoke(Self.usageEvent(at: start + 120))))
            try await Self.put(name, #"{"free":{"monthly":"SECRET-VALUE"}}"#, endpoint)
            seen.append(Self.monthlyLimit(await invoke(Self.usageEvent(at: start + 180))))
            try await Self.put(name, Self.limits(monthly: 15), endpoint)
            seen.append(Self.monthlyLimit(await invoke(Self.usageEvent(at: start + 200))))
            seen.append(Self.monthlyLimit(await invoke(Self.usageEvent(at: start + 240))))
        }
        #expect(seen == [9, 9, 12, 12, 12, 12, 15], "\(result.standardError)")
        let failures = result.standardError.split(separator: "\n").filter { $0.contains("could not be read again") }
        #expect(failures.count == 2, "\(result.standardError)")
        #expect(failures.allSatisfy { !$0.contains("SECRET-VALUE") && !$0.contains("not json") }, "\(failures)")
        let metrics = result.standardOutput.split(separator: "\n").filter {
            $0.contains("\"LimitsRefreshFailure\":1") && $0.contains("\"function\":\"checkUsage\"")
        }
        #expect(metrics.count == 2, "\(result.standardOutput)")
    }

    @Test(
        "Every function that uses the store counts UsageStoreFailure when it answers 503",
        arguments: ["checkUsage", "generateQuestions", "deleteAccount"])
    func usageStoreFailure(function: String) async throws {
        let settings = [
            "INKRA_STORE": "dynamodb", "AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:1", "AWS_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "INKRA_GATEWAY_TIMEOUT": "2",
            "INKRA_DELETE_COGNITO_USER": "false",
        ]
        let event: JSONValue =
            switch function {
            case "generateQuestions":
                [
                    "httpMethod": "POST", "path": "/questions", "body": #"{"topic":"the sea","length":"short"}"#,
                    "requestContext": ["authorizer": Self.caller],
                ]
            case "deleteAccount":
                ["httpMethod": "DELETE", "path": "/account", "requestContext": ["authorizer": Self.caller]]
            default: ["httpMethod": "GET", "path": "/usage", "requestContext": ["authorizer": Self.caller]]
            }
        let (outcome, result) = try await BuiltBootstrap.invoke(function, settings, event: event)
        #expect(Self.statusAndBody(outcome).0 == 503, "\(outcome) \(result.standardError)")
        let counted = result.standardOutput.split(separator: "\n").filter {
            $0.contains("\"UsageStoreFailure\":1") && $0.contains("\"function\":\"\(function)\"")
        }
        #expect(counted.count == 1, "\(result.standardOutput)")
    }
}
