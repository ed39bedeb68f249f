import Foundation
import InkraAuth
import InkraHandlers

#if canImport(Glibc)
    import Glibc
#endif

/// A real custom runtime (such as `bootstrap`) run as a child process against a local Runtime
/// API, set up for local work: Lambda's variables, the emulator's pool and keys, its table, and
/// `INKRA_CLOCK=request-time` so each event runs at its request time.
package final class LocalRuntime: Sendable {
    /// The child process.
    private let process: Process
    /// The development JWKS written for this runtime (when it trusts the development key), removed
    /// once the process has ended.
    package let developmentJWKS: URL?
    /// The child's process id.
    package var processIdentifier: Int32 { process.processIdentifier }

    /// Starts `executable` polling `server` for `function`.
    /// - Parameters:
    ///   - executable: the runtime (e.g. `.build/release/bootstrap`).
    ///   - function: the function it serves (`_HANDLER`).
    ///   - server: the Runtime API it polls; told when the process ends.
    ///   - options: the emulator's options (pool, keys, table, limits).
    ///   - dynamoDBEndpoint: a DynamoDB endpoint the runtime keeps usage in; `nil` for its own
    ///     in-memory table.
    ///   - logLevel: the runtime's `LOG_LEVEL`.
    /// - Throws: ``EmulatorError`` when the process cannot be started or the options name no pool.
    package init(
        executable: URL,
        function: FunctionName,
        server: any RuntimeAPIEndpoint,
        options: EmulatorOptions,
        dynamoDBEndpoint: URL?,
        logLevel: String = "warning"
    ) throws(EmulatorError) {
        process = Process()
        process.executableURL = executable
        let jwks =
            options.jwksFile == nil && options.developmentKey != nil
            ? FileManager.default.temporaryDirectory.appendingPathComponent(
                "inkra-dev-jwks-\(getpid())-\(UUID().uuidString).json") : nil
        developmentJWKS = jwks
        process.environment = try Self.environment(
            function: function, address: server.address, options: options, dynamoDBEndpoint: dynamoDBEndpoint,
            logLevel: logLevel, developmentJWKS: jwks)
        process.standardOutput = FileHandle.standardError
        process.standardError = FileHandle.standardError
        process.terminationHandler = { ended in
            if let jwks { try? FileManager.default.removeItem(at: jwks) }
            let reason = "the runtime exited with status \(ended.terminationStatus)"
            Task { await server.runtimeEnded(reason) }
        }
        do {
            try process.run()
        } catch {
            if let jwks { try? FileManager.default.removeItem(at: jwks) }
            throw EmulatorError("cannot start \(executable.path): \(error.localizedDescription)")
        }
    }

    /// Whether the process is still running.
    package var isRunning: Bool { process.isRunning }

    /// How the process ended ("exited with status 3", "was killed by signal 9"); `nil` while it runs.
    package var ending: String? {
        guard !process.isRunning else { return nil }
        return process.terminationReason == .uncaughtSignal
            ? "was killed by signal \(process.terminationStatus)"
            : "exited with status \(process.terminationStatus)"
    }

    /// SIGTERM, then SIGKILL after two seconds.
    package func stop() async {
        guard process.isRunning else { return }
        process.terminate()
        for _ in 0..<40 where process.isRunning {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// The environment a local runtime starts with: `shell` (the emulator's own environment) less
    /// its `INKRA_*` variables but those ``RuntimeSetting/passesFromShell`` allows (the model's
    /// `INKRA_LLM_*` and `INKRA_RECORD_EVENTS`), and the settings run-runtime sets.
    static func environment(
        function: FunctionName,
        address: String,
        options: EmulatorOptions,
        dynamoDBEndpoint: URL?,
        logLevel: String,
        developmentJWKS: URL?,
        shell: [String: String] = ProcessInfo.processInfo.environment
    ) throws(EmulatorError) -> [String: String] {
        // Inside Lambda an unknown INKRA_* setting stops start-up (a test suite's INKRA_TEST_*, say),
        // and a function's environment holds only what its configuration sets: the runtime gets the
        // INKRA_* settings set below, and of the shell's only those RuntimeSetting lets pass (the
        // model endpoint's and recording).
        var environment = shell.filter {
            !$0.key.hasPrefix("INKRA_") || RuntimeSetting(rawValue: $0.key)?.passesFromShell == true
        }
        environment["AWS_LAMBDA_RUNTIME_API"] = address
        environment["_HANDLER"] = function.rawValue
        environment["AWS_LAMBDA_FUNCTION_NAME"] = function.rawValue
        environment["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] = "256"
        environment["AWS_REGION"] = environment["AWS_REGION"] ?? "us-east-1"
        environment["INKRA_CLOCK"] = "request-time"
        environment["INKRA_TABLE_NAME"] = options.tableName
        environment["LOG_LEVEL"] = logLevel
        if let dynamoDBEndpoint {
            environment["INKRA_STORE"] = "dynamodb"
            environment["AWS_ENDPOINT_URL_DYNAMODB"] = dynamoDBEndpoint.absoluteString
            environment["AWS_ACCESS_KEY_ID"] = environment["AWS_ACCESS_KEY_ID"] ?? "local"
            environment["AWS_SECRET_ACCESS_KEY"] = environment["AWS_SECRET_ACCESS_KEY"] ?? "local"
        } else {
            environment["INKRA_STORE"] = "memory"
        }
        if let limits = options.limitsFile { environment["INKRA_LIMITS_FILE"] = limits.path }
        let cognito = try options.cognitoConfiguration()
        environment["COGNITO_USER_POOL_ID"] = String(cognito.issuer.split(separator: "/").last ?? "")
        environment["COGNITO_REGION"] = cognito.region ?? "us-east-1"
        environment["INKRA_COGNITO_ISSUER"] = (IssuerForm(issuer: cognito.issuer) ?? .original).rawValue
        environment["COGNITO_CLIENT_IDS"] = cognito.clientIds.joined(separator: ",")
        environment["INKRA_TOKEN_USE"] = cognito.tokenUse.rawValue
        // The development pool is not a Cognito pool a runtime could call: deleteAccount erases usage only.
        environment["INKRA_DELETE_COGNITO_USER"] = "false"
        if let jwks = options.jwksFile {
            environment["INKRA_JWKS_FILE"] = jwks.path
        } else if let key = options.developmentKey, let file = developmentJWKS {
            do {
                try key.jwks.write(to: file)
            } catch {
                throw EmulatorError("cannot write the development JWKS to \(file.path): \(error.localizedDescription)")
            }
            environment["INKRA_JWKS_FILE"] = file.path
        }
        return environment
    }
}
