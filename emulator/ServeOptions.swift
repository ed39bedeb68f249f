import ArgumentParser
import EmulatorKit
import EmulatorServer
import Foundation
import InkraHandlers
import LocalUserPool
import Logging

/// What `serve` and `exec` share: the stack's options, and starting it.
struct ServeOptions: ParsableArguments {
    @Option(help: "The address every endpoint binds.")
    var host = "127.0.0.1"

    @Option(help: "API Gateway's port (default 3000).")
    var port: Int?

    @Option(name: .customLong("lambda-port"), help: "The Lambda Invoke API's port (default 3001).")
    var lambdaPort: Int?

    @Option(name: .customLong("runtime-api-port"), help: "The Lambda Runtime API's port (default 9001).")
    var runtimeAPIPort: Int?

    @Option(name: .customLong("dynamodb-port"), help: "The DynamoDB-compatible endpoint's port (default 8000).")
    var dynamoDBPort: Int?

    @Option(help: "API Gateway payloads: v1 (REST API) or v2 (HTTP API).")
    var payload = Payload.v1

    @Option(help: "Serve the routes under this stage (/STAGE/questions).")
    var stage: String?

    @Option(name: .customLong("authorizer-cache-ttl"), help: "Seconds an authorizer answer is cached; 0 turns it off.")
    var authorizerCacheTTL: Double = AuthorizerCache.templateTimeToLive

    @Option(
        name: .customLong("throttle-rate"),
        help: "The stage's steady requests a second, per method, as template.yaml's ThrottlingRateLimit (default 50).")
    var throttleRate: Double = StageThrottle.Limits.template.rate

    @Option(
        name: .customLong("throttle-burst"),
        help: "The stage's burst per method, as template.yaml's ThrottlingBurstLimit (default 100).")
    var throttleBurst: Int = StageThrottle.Limits.template.burst

    @Flag(inversion: .prefixedNo, help: "Throttle as the stage does: 429 past --throttle-rate and --throttle-burst.")
    var throttle = true

    @Option(
        name: .customLong("integration-timeout"),
        help: """
            Seconds API Gateway waits for a function before it answers 504 (REST API, template.yaml's \
            INTEGRATION_TIMEOUT) or 503 (HTTP API) (default 29, HTTP API 30; lifted under --debug); \
            e.g. --integration-timeout 5.
            """)
    var integrationTimeout: Double?

    /// Which clock the stack runs on.
    enum ClockKind: String, CaseIterable, Sendable {
        case real, virtual
    }

    @Option(
        help: """
            real, or virtual: starts at --now (or the real time), flows, and moves forward on \
            POST /_inkra/clock or inkra-emulator clock advance 1h.
            """)
    var clock = Choice(ClockKind.real)

    @Option(name: .customLong("cors-origin"), help: "An origin allowed by CORS (repeatable; default *).")
    var corsOrigins: [String] = []

    @Flag(inversion: .prefixedNo, help: "Answer CORS preflights and add CORS headers.")
    var cors = true

    @Option(name: .customLong("runtime-function"), help: "The function a runtime on the Runtime API serves.")
    var runtimeFunction = Choice(FunctionName.generateQuestions)

    @Option(help: "A runtime (e.g. .build/release/bootstrap) to start on the Runtime API for --runtime-function.")
    var bootstrap: String?

    @Option(name: .customLong("timeout"), help: "Seconds an invocation handed to a runtime may take.")
    var timeout: Double = 30

    @Flag(
        help: """
            Start --bootstrap under a debug server (gdbserver, else lldb-server, from PATH) and wait for a debugger \
            to attach and continue it; invocations may take 900 s.
            """)
    var debug = false

    @Option(name: .customLong("debug-port"), help: "The debug server's loopback port, with --debug.")
    var debugPort = 2345

    @Flag(
        help: """
            Rebuild --bootstrap when a watched file changes and swap the new build in between invocations; \
            the table, the pool and the clock carry over, and a failed build keeps the last good one.
            """)
    var watch = false

    @OptionGroup(title: "Watching") var watching: WatchBuildOptions

    @Flag(inversion: .prefixedNo, help: "Write an access-log line per API request.")
    var accessLog = true

    @Option(
        name: .customLong("console-port"),
        help: "The console's port (default 3002: open http://127.0.0.1:3002/ in a browser).")
    var consolePort: Int?

    @Flag(inversion: .prefixedNo, help: "Serve the console.")
    var console = true

    @Option(
        name: .customLong("cognito-port"),
        help: """
            The local Cognito user pool's port (aws cognito-idp … --endpoint-url http://127.0.0.1:9229); \
            default 9229, or a free port when 9229 is taken.
            """)
    var cognitoPort: Int?

    @Flag(inversion: .prefixedNo, help: "Serve the local Cognito user pool.")
    var cognito = true

    @Option(
        name: .customLong("pool-issuer"),
        help: """
            The issuer of the local pool's tokens: local (http://HOST:PORT/<poolId>), or ORIGINAL or \
            UPDATED, Cognito's issuer URL of that form (the pool's IssuerConfiguration); in any case.
            """)
    var poolIssuer = Choice(PoolIssuer.local)

    @Option(
        name: .customLong("state-from-scan"),
        help: "Seed the table first from `aws dynamodb scan --output json` output (one or several pages).")
    var stateFromScan: String?

    @Option(help: "Write every API request answered as an event file and its expectation in this folder, for replay.")
    var record: String?

    @OptionGroup var common: CommonOptions

    func validate() throws {
        for (role, port, _) in givenPorts where !(0...65_535).contains(port ?? 0) {
            throw ValidationError("\(role.flag) must be a port from 0 to 65535, not \(port ?? 0)")
        }
        guard authorizerCacheTTL >= 0, authorizerCacheTTL <= 3600 else {
            throw ValidationError("--authorizer-cache-ttl must be from 0 to 3600 seconds, as API Gateway allows")
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        if let integrationTimeout, !(integrationTimeout > 0 && integrationTimeout.isFinite) {
            throw ValidationError("--integration-timeout must be a positive number of seconds")
        }
        guard throttleRate > 0, throttleRate.isFinite else {
            throw ValidationError(
                "--throttle-rate must be a positive number of requests a second (or use --no-throttle)")
        }
        guard throttleBurst >= 1 else {
            throw ValidationError("--throttle-burst must be at least 1 (or use --no-throttle)")
        }
        if let bootstrap, !FileManager.default.isExecutableFile(atPath: bootstrap) {
            throw ValidationError("--bootstrap \(bootstrap) is not an executable file")
        }
        if watch && bootstrap == nil {
            throw ValidationError("--watch rebuilds the runtime --bootstrap starts; name one")
        }
        try watching.validate(watch: watch)
        if debug {
            guard bootstrap != nil else {
                throw ValidationError("--debug debugs the runtime --bootstrap starts; name one")
            }
            guard (1...65_535).contains(debugPort) else {
                throw ValidationError("--debug-port must be a port from 1 to 65535, not \(debugPort)")
            }
            guard DebugServer.onPath(port: debugPort) != nil else {
                throw ValidationError(
                    "--debug needs gdbserver (apt-get install gdbserver) or the toolchain's lldb-server on PATH")
            }
        }
        if record != nil && common.pool.userPoolID != nil {
            throw ValidationError(
                "--record keeps each request's token to replay it; it records development tokens, not a user pool's")
        }
        if let stage, stage.isEmpty || stage.contains("/") {
            throw ValidationError("--stage must be a name without '/', not \"\(stage)\"")
        }
    }

    /// Each endpoint's port as given, and whether the endpoint is on.
    private var givenPorts: [(EndpointRole, Int?, Bool)] {
        [
            (.api, port, true), (.lambda, lambdaPort, true), (.runtimeAPI, runtimeAPIPort, true),
            (.dynamoDB, dynamoDBPort, true), (.console, consolePort, console), (.cognito, cognitoPort, cognito),
        ]
    }

    /// Starts the stack and its server from the options. `freePorts` (exec's case) puts every
    /// endpoint whose port was not given on a free port instead of its default; `log` takes the
    /// access log's lines.
    func start(freePorts: Bool, log: @escaping @Sendable (String) -> Void = { Output.out($0) }) async throws
        -> LocalServer
    {
        var configuration = ServeConfiguration()
        configuration.host = host
        configuration.ports = [:]
        for (role, port, on) in givenPorts where on {
            configuration.ports[role] = port ?? (freePorts ? 0 : role.defaultPort)
        }
        if cognitoPort == nil { configuration.freePortWhenTaken = [.cognito] }
        configuration.gateway.payload = payload.version
        configuration.gateway.stage = stage
        configuration.gateway.authorizerCacheTTL = authorizerCacheTTL
        configuration.gateway.throttle = throttle ? StageThrottle.Limits(rate: throttleRate, burst: throttleBurst) : nil
        // As template.yaml's request validator: a REST API refuses a body its model refuses.
        configuration.gateway.validatesBodies = true
        configuration.gateway.cors = CORSPolicy(allowedOrigins: !cors ? [] : corsOrigins.isEmpty ? ["*"] : corsOrigins)
        configuration.runtimeFunction = runtimeFunction.value
        configuration.functionTimeout = debug ? DebugServer.timeout : timeout
        // API Gateway's integration timeout: 29 s on a REST API, 30 s on an HTTP API; none while a
        // debugger may hold the runtime at a breakpoint.
        let integrationSeconds = integrationTimeout ?? (payload.version == .v1 ? 29 : 30)
        configuration.gateway.integrationTimeout = debug ? nil : .milliseconds(Int64(integrationSeconds * 1000))
        configuration.runtimeDebugger = debug ? DebugServer.onPath(port: debugPort) : nil
        configuration.runtimeExecutable = bootstrap.map { URL(fileURLWithPath: $0) }
        configuration.runtimeLogLevel = common.logLevel.value.rawValue
        configuration.accessLog = accessLog
        if let form = poolIssuer.value.form { configuration.userPool.issuerForm = form }
        let level = common.logLevel.value
        return try await LocalServer.start(
            options: try common.emulatorOptions(), configuration: configuration, virtualClock: clock.value == .virtual,
            seed: stateFromScan.map { URL(fileURLWithPath: $0) }, record: record.map { URL(fileURLWithPath: $0) },
            logging: { LogSetup.bootstrap(level: level, now: $0) }, accessLog: log)
    }
}

extension ServeOptions {
    /// The rebuild loop `--watch` asks for, over `server`; `nil` without `--watch`.
    func watchLoop(_ server: LocalServer) -> WatchLoop? {
        guard watch, let bootstrap else { return nil }
        return WatchLoop(
            roots: watching.watchedPaths.map { URL(fileURLWithPath: $0) },
            build: watching.buildCommand(for: bootstrap), server: server)
    }
}
