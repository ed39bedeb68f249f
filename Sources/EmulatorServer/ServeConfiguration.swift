import EmulatorKit
import Foundation
import HTTPText
import InkraHandlers
import LocalUserPool

/// How `serve` is set up: the address and ports of its endpoints, the API's setup and which
/// function the Runtime API serves.
package struct ServeConfiguration: Sendable {
    /// The address every endpoint binds (loopback by default).
    package var host = "127.0.0.1"
    /// Each endpoint's port (0 picks a free one). The API, Lambda and the Runtime API take their
    /// default when left out; the others are off without one (the user pool also without the
    /// development key).
    package var ports = Dictionary(
        uniqueKeysWithValues: [EndpointRole.api, .lambda, .runtimeAPI, .dynamoDB].map {
            ($0, $0.defaultPort)
        })
    /// The endpoints that move to a free port when theirs is in use (`serve` without `--cognito-port`).
    package var freePortWhenTaken: Set<EndpointRole> = []
    /// The API's payload version, stage, authorizer cache and CORS.
    package var gateway = LocalAPIGateway.Configuration()
    /// The function a runtime attached to the Runtime API serves; its invocations go to that
    /// runtime while one is attached.
    package var runtimeFunction = FunctionName.generateQuestions
    /// A runtime executable (such as `bootstrap`) to start against the Runtime API once every
    /// endpoint listens, and to stop at shutdown; `nil` to leave starting one to the developer.
    package var runtimeExecutable: URL?
    /// A debug server to start ``runtimeExecutable`` under (`--debug`); `nil` starts it directly.
    package var runtimeDebugger: DebugServer?
    /// The clock `/_inkra/clock` moves (`--clock virtual`); `nil` when the stack runs on the real
    /// time. The stack's ``EmulatorOptions/clock`` must read it.
    package var virtualClock: VirtualClock?
    /// The started runtime's `LOG_LEVEL`.
    package var runtimeLogLevel = "warning"
    /// The function timeout applied to invocations handed to a runtime.
    package var functionTimeout: TimeInterval = 30
    /// Whether to write an access-log line per API request.
    package var accessLog = true
    /// The local user pool's rules (template.yaml's).
    package var userPool = UserPoolSettings()

    /// The defaults of docs/emulator.md: ports 3000, 3001, 9001 and 8000 on 127.0.0.1.
    package init() {}

    /// Every port 0, for tests and side-by-side stacks.
    package static var ephemeral: ServeConfiguration {
        var configuration = ServeConfiguration()
        configuration.ports = configuration.ports.mapValues { _ in 0 }
        return configuration
    }
}

/// Where a running `serve` listens.
package struct ServeEndpoints: Sendable, Hashable {
    /// The local API Gateway.
    package var api: HTTPURL
    /// The Lambda Invoke API (`aws lambda invoke --endpoint-url`).
    package var lambda: HTTPURL
    /// The Lambda Runtime API, as `AWS_LAMBDA_RUNTIME_API` takes it (`host:port`).
    package var runtimeAPI: String
    /// The DynamoDB-compatible endpoint, when it is on.
    package var dynamoDB: HTTPURL?
    /// The console in the browser, when it is on.
    package var console: HTTPURL? = nil
    /// The local Cognito user pool's endpoint, when it is on.
    package var cognito: HTTPURL? = nil

    /// The start-up banner: every endpoint and how to use it.
    package func banner(configuration: ServeConfiguration, stateFile: URL?, dynamoDBEndpoint: HTTPURL?) -> String {
        let payload = configuration.gateway.payload == .v1 ? "REST API, payload 1.0" : "HTTP API, payload 2.0"
        let prefix = configuration.gateway.stage.map { "/\($0)" } ?? ""
        let cache =
            configuration.gateway.authorizerCacheTTL > 0
            ? "authorizer cache \(Int(configuration.gateway.authorizerCacheTTL)) s" : "authorizer cache off"
        let throttle =
            configuration.gateway.throttle.map {
                "throttle \($0.rate.formatted(.number.grouping(.never))) a second, burst \($0.burst), per method"
            } ?? "throttle off"
        var lines = [
            "inkra-emulator serve",
            "  API Gateway   \(api.absoluteString)  (\(payload), \(cache), \(throttle))",
            "                POST \(prefix)/questions -> generateQuestions"
                + (configuration.gateway.validatesBodies && configuration.gateway.payload == .v1
                    ? "  (body checked against QuestionsRequest first)" : ""),
            "                GET  \(prefix)/usage     -> checkUsage",
            "                DELETE \(prefix)/account -> deleteAccount",
            "  Lambda        \(lambda.absoluteString)  (aws lambda invoke --endpoint-url \(lambda.absoluteString) …)",
        ]
        let function = configuration.runtimeFunction.rawValue
        let runtime =
            configuration.runtimeExecutable.map { "\($0.path) serves \(function)" }
            ?? "AWS_LAMBDA_RUNTIME_API=\(runtimeAPI) _HANDLER=\(function) ./bootstrap"
        lines.append("  Runtime API   \(runtimeAPI)  (\(runtime))")
        if let dynamoDB {
            lines.append(
                "  DynamoDB      \(dynamoDB.absoluteString)  (aws dynamodb scan --table-name … --endpoint-url "
                    + "\(dynamoDB.absoluteString))")
        } else if let dynamoDBEndpoint {
            lines.append("  DynamoDB      usage is kept at \(dynamoDBEndpoint.absoluteString)")
        }
        if let console {
            lines.append("  Console       \(console.absoluteString)  (open it in a browser: requests, users, table)")
        }
        if let cognito {
            let pool = configuration.userPool
            lines.append(
                "  Cognito       \(cognito.absoluteString)  (user pool \(pool.poolID): "
                    + "aws cognito-idp … --endpoint-url \(cognito.absoluteString))")
            for client in pool.clients {
                lines.append("                app client \(client.id)  (\(client.authFlows.joined(separator: ", ")))")
            }
            lines.append(
                "                issuer \(cognito.absoluteString)/\(pool.poolID)  (its id tokens pass the authorizer)")
        }
        if let stateFile { lines.append("  State         \(stateFile.path) (written on exit)") }
        lines.append("Press Ctrl-C to stop.")
        return lines.joined(separator: "\n")
    }
}
