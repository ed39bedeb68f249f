import ArgumentParser
import EmulatorKit
import EmulatorServer
import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import LocalUserPool
import Logging

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the stack on loopback: API Gateway, the Lambda Invoke and Runtime APIs, and DynamoDB.",
        discussion: """
            API Gateway (--port): POST /questions -> generateQuestions, GET /usage -> checkUsage, \
            DELETE /account -> deleteAccount, the authorizer in front with its answers cached per token. \
            Lambda (--lambda-port): the Invoke API, \
            for aws lambda invoke --endpoint-url and boto3. Runtime API (--runtime-api-port): a real bootstrap \
            (started by --bootstrap, or by you with AWS_LAMBDA_RUNTIME_API pointing here) serves \
            --runtime-function while it polls; with --bootstrap it keeps usage in the DynamoDB endpoint, so \
            both share one table. \
            DynamoDB (--dynamodb-port): the in-memory table, for aws dynamodb --endpoint-url and boto3. \
            Console (--console-port, off with --no-console): a read-only page in the browser with the live \
            requests, each user's usage against the limits and the table's items. \
            Cognito (--cognito-port, off with --no-cognito): a user pool with template.yaml's rules for \
            aws cognito-idp --endpoint-url, boto3 and the app's SDK (SignUp, InitiateAuth with SRP, …); \
            confirmation codes go to the log, and the authorizer trusts its id tokens. \
            Port 0 picks a free port. SIGINT or SIGTERM stops accepting, finishes what is under way, writes \
            --state and exits 0.

            Examples, from the repository root (the second in another terminal):
              swift run inkra-emulator serve --state /tmp/inkra-serve.json
              curl -X POST localhost:3000/questions -d '{"topic":"my first job"}' \\
                -H "Authorization: Bearer $(swift run inkra-emulator token --sub alice)"

            --record DIR writes each API request answered as an event and its expectation, so that \
            `replay DIR` (with the same --limits and --seed) replays the session and checks every answer:
              swift run inkra-emulator serve --record session/
              swift run inkra-emulator replay session/
            """
    )

    @Option(help: "The address every endpoint binds.")
    var host = "127.0.0.1"

    @Option(help: "API Gateway's port.")
    var port = 3000

    @Option(name: .customLong("lambda-port"), help: "The Lambda Invoke API's port.")
    var lambdaPort = 3001

    @Option(name: .customLong("runtime-api-port"), help: "The Lambda Runtime API's port.")
    var runtimeAPIPort = 9001

    @Option(name: .customLong("dynamodb-port"), help: "The DynamoDB-compatible endpoint's port.")
    var dynamoDBPort = 8000

    @Option(help: "API Gateway payloads: v1 (REST API) or v2 (HTTP API).")
    var payload = Payload.v1

    @Option(help: "Serve the routes under this stage (/STAGE/questions).")
    var stage: String?

    @Option(name: .customLong("authorizer-cache-ttl"), help: "Seconds an authorizer answer is cached; 0 turns it off.")
    var authorizerCacheTTL: Double = 300

    @Option(name: .customLong("cors-origin"), help: "An origin allowed by CORS (repeatable; default *).")
    var corsOrigins: [String] = []

    @Flag(name: .customLong("no-cors"), help: "Answer no CORS preflight and add no CORS headers.")
    var noCORS = false

    @Option(name: .customLong("runtime-function"), help: "The function a runtime on the Runtime API serves.")
    var runtimeFunction = Choice(FunctionName.generateQuestions)

    @Option(help: "A runtime (e.g. .build/release/bootstrap) to start on the Runtime API for --runtime-function.")
    var bootstrap: String?

    @Option(name: .customLong("timeout"), help: "Seconds an invocation handed to a runtime may take.")
    var timeout: Double = 30

    @Flag(name: .customLong("no-access-log"), help: "Write no access-log line per API request.")
    var noAccessLog = false

    @Option(name: .customLong("console-port"), help: "The console's port (open http://127.0.0.1:3002/ in a browser).")
    var consolePort = 3002

    @Flag(name: .customLong("no-console"), help: "Serve no console.")
    var noConsole = false

    @Option(
        name: .customLong("cognito-port"),
        help: """
            The local Cognito user pool's port (aws cognito-idp … --endpoint-url http://127.0.0.1:9229); \
            default 9229, or a free port when 9229 is taken.
            """)
    var cognitoPort: Int?

    @Flag(name: .customLong("no-cognito"), help: "Serve no local Cognito user pool.")
    var noCognito = false

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
        for (flag, value) in [
            ("--port", port), ("--lambda-port", lambdaPort), ("--runtime-api-port", runtimeAPIPort),
            ("--dynamodb-port", dynamoDBPort), ("--console-port", consolePort), ("--cognito-port", cognitoPort ?? 0),
        ] where !(0...65_535).contains(value) {
            throw ValidationError("\(flag) must be a port from 0 to 65535, not \(value)")
        }
        guard authorizerCacheTTL >= 0, authorizerCacheTTL <= 3600 else {
            throw ValidationError("--authorizer-cache-ttl must be from 0 to 3600 seconds, as API Gateway allows")
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        if let bootstrap, !FileManager.default.isExecutableFile(atPath: bootstrap) {
            throw ValidationError("--bootstrap \(bootstrap) is not an executable file")
        }
        if record != nil && common.userPoolID != nil {
            throw ValidationError(
                "--record keeps each request's token to replay it; it records development tokens, not a user pool's")
        }
        if let stage, stage.isEmpty || stage.contains("/") {
            throw ValidationError("--stage must be a name without '/', not \"\(stage)\"")
        }
    }

    func run() async throws {
        let options = try common.emulatorOptions()
        LogSetup.bootstrapCapturing(level: common.logLevel.value, now: options.clock)
        if !EventLoopExecutor.isInstalled {
            Logger(label: "inkra.serve").warning(
                """
                Swift tasks run on Swift's own pool, not on the event loops (NIO's installer could not take \
                over): requests cost more CPU
                """)
        }
        let stack = try EmulatorStack(options: options)
        if let stateFromScan {
            let scan = try TableScan(contentsOf: URL(fileURLWithPath: stateFromScan))
            try await scan.seed(stack.table, tableName: stack.options.tableName)
            Output.err("seeded \(scan.wireItems.count) items from \(stateFromScan)")
        }
        var configuration = ServeConfiguration()
        configuration.host = host
        configuration.apiPort = port
        configuration.lambdaPort = lambdaPort
        configuration.runtimeAPIPort = runtimeAPIPort
        configuration.dynamoDBPort = stack.memoryTable == nil ? nil : dynamoDBPort
        configuration.gateway.payload = payload.version
        configuration.gateway.stage = stage
        configuration.gateway.authorizerCacheTTL = authorizerCacheTTL
        configuration.gateway.cors = CORSPolicy(allowedOrigins: noCORS ? [] : corsOrigins.isEmpty ? ["*"] : corsOrigins)
        configuration.runtimeFunction = runtimeFunction.value
        configuration.functionTimeout = timeout
        configuration.runtimeExecutable = bootstrap.map { URL(fileURLWithPath: $0) }
        configuration.runtimeLogLevel = common.logLevel.value.rawValue
        configuration.accessLog = !noAccessLog
        configuration.consolePort = noConsole ? nil : consolePort
        configuration.cognitoPort = noCognito ? nil : cognitoPort ?? 9229
        configuration.cognitoPortFallsBack = cognitoPort == nil
        if let form = poolIssuer.value.form { configuration.userPool.issuerForm = form }
        if let record {
            let recorder = try ServeRecorder(directory: URL(fileURLWithPath: record))
            configuration.gateway.observers.append { recorder.record($0) }
            Output.err("inkra-emulator: recording every API request answered to \(recorder.directory.path)")
        }
        let server = try await LocalServer(stack: stack, configuration: configuration) { Output.out($0) }
        // As the deployed stack's schedule runs repairCharges: calls charged and never answered
        // (a runtime killed mid-request) get their unit back once their lease runs out.
        let repairs = Task { await Self.repairPeriodically(stack.repairCharges, stack: stack) }
        defer { repairs.cancel() }
        let settings = configuration
        try await server.run(stopsOnSignals: true) { endpoints in
            Output.out(
                endpoints.banner(
                    configuration: settings, stateFile: options.stateFile, dynamoDBEndpoint: options.dynamoDBEndpoint))
        }
        Output.err("inkra-emulator: stopped\(options.stateFile.map { "; state written to \($0.path)" } ?? "")")
    }
}

extension ServeCommand {
    /// How often `serve` runs `repairCharges`.
    static let repairInterval: Duration = .seconds(30)

    /// Runs `repairCharges` every ``repairInterval`` until cancelled, saying what it gave back.
    static func repairPeriodically(_ repair: RepairCharges, stack: EmulatorStack) async {
        while true {
            do {
                try await Task.sleep(for: repairInterval)
            } catch {
                return
            }
            do {
                let result = try await repair.handle([:], context: stack.context())
                if let repaired = result["repaired"]?.int, repaired > 0 {
                    Output.err("inkra-emulator: repairCharges gave back \(repaired) unit(s) of calls never answered")
                }
            } catch {
                Output.err("inkra-emulator: repairCharges failed: \(error.errorMessage); trying again in 30 s")
            }
        }
    }
}
