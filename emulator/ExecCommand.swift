import ArgumentParser
import EmulatorKit
import EmulatorServer
import Foundation
import HTTPText
import LocalUserPool
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `exec`: the local stack around one command, as an app's test suite needs it.
struct ExecCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract:
            "Start the local stack on free ports, run a command against it, stop the stack, exit with its status.",
        discussion: """
            Takes serve's options: a port given is used, every other endpoint gets a free port. \
            After -- comes the command; it inherits standard input, output and error, and finds \
            the stack in its environment:
              INKRA_API_URL       API Gateway (with /STAGE under --stage)
              INKRA_LAMBDA_URL    the Lambda Invoke API
              INKRA_DYNAMODB_URL  the in-memory table (and AWS_ENDPOINT_URL_DYNAMODB),
                                  INKRA_TABLE_NAME its name; not with --dynamodb-endpoint
              INKRA_COGNITO_URL   the user pool (and AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER),
                                  INKRA_USER_POOL_ID, INKRA_APP_CLIENT_ID (SRP, as the app),
                                  INKRA_CLI_CLIENT_ID (USER_PASSWORD_AUTH too); not with --no-cognito
              INKRA_CONSOLE_URL   the console; not with --no-console
              AWS_REGION          the pool's region, unless set
            and test credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY unless both are set, \
            so boto3 and the AWS CLI sign their requests. The stack's banner and access log go to \
            standard error. When the command ends the stack stops (writing --state), and exec exits \
            with the command's status: 128 + N when signal N ended it, 127 when it cannot be found. \
            SIGINT or SIGTERM stops the stack, and the command with it.

            Example, from the repository root:
              swift run inkra-emulator exec -- python3 app_tests.py
            """
    )

    @OptionGroup var options: ServeOptions

    @Argument(parsing: .postTerminator, help: "The command to run, after --.")
    var command: [String] = []

    func validate() throws {
        guard !command.isEmpty else {
            throw ValidationError("name the command to run after --, e.g. exec -- python3 app_tests.py")
        }
    }

    func run() async throws {
        let server = try await options.start(freePorts: true) { Output.err($0) }
        let (stack, configuration) = (server.stack, server.configuration)
        let child = ChildCommand(command)
        let stateFile = stack.options.stateFile
        let dynamoDBEndpoint = stack.options.dynamoDBEndpoint
        let tableName = stack.options.tableName
        let stage = configuration.gateway.stage
        let pool = configuration.userPool
        try await server.run(stopsOnSignals: true) { endpoints in
            let banner = endpoints.banner(
                configuration: configuration, stateFile: stateFile, dynamoDBEndpoint: dynamoDBEndpoint)
            Output.err(banner.replacingOccurrences(of: "Press Ctrl-C to stop.", with: "Running: \(child.commandLine)"))
            let environment = Self.environment(
                endpoints, stage: stage, tableName: tableName, pool: pool,
                inherited: ProcessInfo.processInfo.environment)
            Task {
                await child.run(environment: environment)
                await server.shutdown()
            }
        }
        // The stack stopped first (a signal, a port that could not be bound): the command goes too.
        let status = await child.stop()
        Output.err("inkra-emulator: stopped\(stateFile.map { "; state written to \($0.path)" } ?? "")")
        guard let status else { throw ExitCode(2) }
        throw ExitCode(status)
    }

    /// The command's environment: the inherited one with the stack's addresses.
    static func environment(
        _ endpoints: ServeEndpoints, stage: String?, tableName: String, pool: UserPoolSettings,
        inherited: [String: String]
    ) -> [String: String] {
        var environment = inherited
        let api = endpoints.api.absoluteString
        environment["INKRA_API_URL"] = stage.map { "\(api)/\($0)" } ?? api
        environment["INKRA_LAMBDA_URL"] = endpoints.lambda.absoluteString
        if let dynamoDB = endpoints.dynamoDB?.absoluteString {
            environment["INKRA_DYNAMODB_URL"] = dynamoDB
            environment["AWS_ENDPOINT_URL_DYNAMODB"] = dynamoDB
            environment["INKRA_TABLE_NAME"] = tableName
        }
        if let cognito = endpoints.cognito?.absoluteString {
            environment["INKRA_COGNITO_URL"] = cognito
            environment["AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER"] = cognito
            environment["INKRA_USER_POOL_ID"] = pool.poolID
            environment["INKRA_APP_CLIENT_ID"] = pool.clients.first?.id
            environment["INKRA_CLI_CLIENT_ID"] =
                pool.clients.first { $0.authFlows.contains("ALLOW_USER_PASSWORD_AUTH") }?.id
        }
        if let console = endpoints.console?.absoluteString { environment["INKRA_CONSOLE_URL"] = console }
        let region = pool.poolID.split(separator: "_", maxSplits: 1).first.map(String.init) ?? "us-east-1"
        if environment["AWS_REGION"] == nil { environment["AWS_REGION"] = region }
        if environment["AWS_DEFAULT_REGION"] == nil { environment["AWS_DEFAULT_REGION"] = environment["AWS_REGION"] }
        if environment["AWS_ACCESS_KEY_ID"] == nil || environment["AWS_SECRET_ACCESS_KEY"] == nil {
            environment["AWS_ACCESS_KEY_ID"] = "local"
            environment["AWS_SECRET_ACCESS_KEY"] = "local"
        }
        return environment
    }
}

/// The command `exec` runs: started once the stack listens, its status kept for exec's own.
final class ChildCommand: Sendable {
    private let arguments: [String]
    private struct State {
        var process: Process?
        var status: Int32?
        var waiters: [CheckedContinuation<Void, Never>] = []
        var ended = false
    }
    private let state = Mutex(State())

    init(_ arguments: [String]) { self.arguments = arguments }

    /// The command for the log: its program and how many arguments follow, never the arguments,
    /// which may hold a token or a password.
    var commandLine: String {
        let rest = arguments.count - 1
        return (arguments.first ?? "") + (rest > 0 ? " (and \(rest) argument\(rest == 1 ? "" : "s"))" : "")
    }

    /// Runs the command to its end; a command that cannot be started ends with 127, as a shell's would.
    func run(environment: [String: String]) async {
        let process = Process()
        // `env` finds the command on PATH, and answers 127 when it is not there.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--"] + arguments
        process.environment = environment
        await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
            process.terminationHandler = { [self] ended in
                let status =
                    ended.terminationReason == .uncaughtSignal ? 128 + ended.terminationStatus : ended.terminationStatus
                finish(status)
            }
            do {
                try process.run()
                state.withLock { $0.process = process }
            } catch {
                Output.err("inkra-emulator: cannot run \(commandLine): \(error)")
                finish(127)
            }
            started.resume()
        }
        await ended()
    }

    /// Stops the command if it still runs (SIGTERM, as the stack was stopped) and gives its status;
    /// `nil` when it never started.
    func stop() async -> Int32? {
        let (process, started) = state.withLock { ($0.process, $0.process != nil || $0.ended) }
        guard started else { return nil }
        if let process, process.isRunning { kill(process.processIdentifier, SIGTERM) }
        await ended()
        return state.withLock { $0.status }
    }

    private func finish(_ status: Int32) {
        let waiters = state.withLock { state in
            state.status = state.status ?? status
            state.ended = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func ended() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.ended { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
