import ArgumentParser
import EmulatorKit
import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON

#if canImport(Glibc)
    import Glibc
#endif

struct RunRuntimeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run-runtime",
        abstract: "Run a real custom runtime (bootstrap) against a local Runtime API and feed it events.",
        discussion: """
            Starts the Lambda Runtime API on loopback, spawns the executable with AWS_LAMBDA_RUNTIME_API pointing \
            at it and _HANDLER set to the function, and replays the events for that function through it — the \
            authorizer chain runs in the emulator, as API Gateway runs it — comparing expectations as replay does. \
            The runtime is configured for local work: in-memory store (or --dynamodb-endpoint), the development \
            pool's JWKS, and INKRA_CLOCK=request-time so each event runs at its recorded time.
            """
    )

    @Argument(help: "The runtime executable (e.g. .build/release/bootstrap).")
    var executable: String

    @Option(help: "authorizer, checkUsage or generateQuestions.")
    var function: String

    @Argument(help: "Event files and folders (default: events).")
    var paths: [String] = []

    @Option(name: .customLong("runtime-api-port"), help: "The Runtime API's port (0 picks a free one).")
    var runtimeAPIPort: Int = 0

    @Option(help: "The function's timeout in seconds.")
    var timeout: Double = 3

    @Flag(help: "Print one JSON object per event instead of text.")
    var json = false

    @OptionGroup var common: CommonOptions

    func validate() throws {
        guard FunctionName(caseInsensitive: function) != nil else {
            throw ValidationError("--function must be authorizer, checkUsage or generateQuestions, not \"\(function)\"")
        }
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ValidationError("\(executable) is not an executable file")
        }
    }

    func run() async throws {
        LogSetup.bootstrap(level: common.logLevel)
        let name = FunctionName(caseInsensitive: function) ?? .authorizer
        let options = try common.emulatorOptions()
        let stack = try EmulatorStack(options: options)
        let server = try await RuntimeAPIServer(port: runtimeAPIPort, functionName: name.rawValue, clock: options.clock)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.environment = try runtimeEnvironment(name, options, server)
        process.standardOutput = FileHandle.standardError
        process.standardError = FileHandle.standardError
        process.terminationHandler = { ended in
            let reason = "the runtime exited with status \(ended.terminationStatus)"
            Task { await server.runtimeEnded(reason) }
        }
        do {
            try process.run()
        } catch {
            await server.shutdown()
            throw UsageFailure("cannot start \(executable): \(error.localizedDescription)")
        }
        Output.err("runtime \(executable) (pid \(process.processIdentifier)) polling http://\(server.address)")

        var replayer = Replayer(stack: stack)
        replayer.keepsResults = false
        if options.dynamoDBEndpoint == nil {
            // The runtime keeps its own in-memory table, so events of the other functions would not
            // see its writes: replay only this function's events. On DynamoDB both share the table,
            // and the other functions run in the emulator as API Gateway would call them.
            replayer.functions = [name]
            Output.err(
                "note: replaying only \(name.rawValue) events (pass --dynamodb-endpoint to run the others beside it)")
        }
        let invoker = RuntimeInvoker(server: server, timeout: timeout)
        replayer.target = { function, event, time in
            function == name ? await invoker.invoke(event, recordedAt: time) : nil
        }
        let targets = (paths.isEmpty ? ["events"] : paths).map { URL(fileURLWithPath: $0) }
        let started = ContinuousClock.now
        let records = await replayer.replay(targets) { record, _, _ in
            Output.out(json ? ReplayReporter.json(for: record).jsonString : ReplayReporter.line(for: record))
        }
        let elapsed = ContinuousClock.now - started
        await stop(process)
        await server.shutdown()
        if !json { Output.out(ReplayReporter.summary(records, elapsed: elapsed)) }
        if case .initializationFailed(let type, let body)? = await server.initializationFailure {
            Output.err("the runtime failed to start (\(type)): \(String(decoding: body, as: UTF8.self))")
            throw ExitCode(1)
        }
        if records.isEmpty {
            Output.err("no events for \(name.rawValue) in \(targets.map(\.relativePath).joined(separator: ", "))")
            throw ExitCode(2)
        }
        if records.contains(where: { !$0.ok }) { throw ExitCode(1) }
    }

    /// The environment the runtime starts with: Lambda's variables, and settings that trust the
    /// emulator's pool (the development one unless flags name another).
    private func runtimeEnvironment(_ name: FunctionName, _ options: EmulatorOptions, _ server: RuntimeAPIServer) throws
        -> [String: String]
    {
        var environment = ProcessInfo.processInfo.environment
        environment["AWS_LAMBDA_RUNTIME_API"] = server.address
        environment["_HANDLER"] = name.rawValue
        environment["AWS_LAMBDA_FUNCTION_NAME"] = name.rawValue
        environment["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] = "256"
        environment["AWS_REGION"] = environment["AWS_REGION"] ?? "us-east-1"
        environment["INKRA_CLOCK"] = "request-time"
        environment["INKRA_TABLE_NAME"] = options.tableName
        environment["LOG_LEVEL"] = common.logLevel
        if let endpoint = options.dynamoDBEndpoint {
            environment["INKRA_STORE"] = "dynamodb"
            environment["AWS_ENDPOINT_URL_DYNAMODB"] = endpoint.absoluteString
            environment["AWS_ACCESS_KEY_ID"] = environment["AWS_ACCESS_KEY_ID"] ?? "local"
            environment["AWS_SECRET_ACCESS_KEY"] = environment["AWS_SECRET_ACCESS_KEY"] ?? "local"
        } else {
            environment["INKRA_STORE"] = "memory"
        }
        if let limits = options.limitsFile { environment["INKRA_LIMITS_FILE"] = limits.path }
        let cognito = try options.cognitoConfiguration()
        let poolID = String(cognito.issuer.split(separator: "/").last ?? "")
        environment["COGNITO_USER_POOL_ID"] = poolID
        environment["COGNITO_REGION"] = cognito.region ?? "us-east-1"
        environment["COGNITO_CLIENT_IDS"] = cognito.clientIds.joined(separator: ",")
        environment["INKRA_TOKEN_USE"] = cognito.tokenUse.rawValue
        if let jwks = options.jwksFile {
            environment["INKRA_JWKS_FILE"] = jwks.path
        } else if let key = options.developmentKey {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-dev-jwks-\(getpid()).json")
            try key.jwks.write(to: file)
            environment["INKRA_JWKS_FILE"] = file.path
        }
        return environment
    }

    /// SIGTERM, then SIGKILL after two seconds.
    private func stop(_ process: Process) async {
        guard process.isRunning else { return }
        process.terminate()
        for _ in 0..<40 where process.isRunning {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
