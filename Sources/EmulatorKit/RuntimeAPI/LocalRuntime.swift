import Foundation
import HTTPText
import InkraAuth
import InkraHandlers
import InkraUsage
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A real custom runtime (such as `bootstrap`) run as a child process against a local Runtime
/// API, set up for local work: Lambda's variables, the emulator's pool and keys, its table, and
/// `INKRA_CLOCK=request-time` so each event runs at its request time.
package final class LocalRuntime: Sendable {
    /// The child process.
    private let process: Process
    /// Whether it is being stopped to be replaced (``stop(replacing:)``), shared with the
    /// process's termination handler.
    private final class Flag: Sendable {
        let value = Mutex(false)
    }
    private let replaced = Flag()
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
    ///   - debugger: a debug server to start the runtime under, stopped before its first
    ///     instruction until a debugger attaches; `nil` starts it directly.
    ///   - xrayDaemonAddress: where the runtime sends X-Ray segments (a ``TraceSource``'s address);
    ///     `nil`: none.
    /// - Throws: ``EmulatorError`` when the process cannot be started or the options name no pool.
    package init(
        executable: URL,
        function: FunctionName,
        server: any RuntimeAPIEndpoint,
        options: EmulatorOptions,
        dynamoDBEndpoint: HTTPURL?,
        logLevel: String = "warning",
        debugger: DebugServer? = nil,
        xrayDaemonAddress: String? = nil
    ) throws(EmulatorError) {
        process = Process()
        if let debugger {
            process.executableURL = debugger.executable
            process.arguments = debugger.arguments(running: executable)
        } else {
            process.executableURL = executable
        }
        let jwks =
            options.jwksFile == nil && options.developmentKey != nil
            ? FileManager.default.temporaryDirectory.appendingPathComponent(
                "inkra-dev-jwks-\(getpid())-\(UUID().uuidString).json") : nil
        developmentJWKS = jwks
        var environment = try Self.environment(
            function: function, address: server.address, options: options, dynamoDBEndpoint: dynamoDBEndpoint,
            logLevel: logLevel, developmentJWKS: jwks)
        // A runtime paused at a breakpoint must not run out of time: API Gateway's timeout as far
        // as the setting goes (Lambda's longest, 15 minutes); the invoker waits as long.
        if debugger != nil { environment[setting: .gatewayTimeout] = String(Int(DebugServer.timeout)) }
        // Where the runtime sends its X-Ray segments: the emulator's listener, as Lambda's daemon.
        if let xrayDaemonAddress { environment["AWS_XRAY_DAEMON_ADDRESS"] = xrayDaemonAddress }
        process.environment = environment
        process.standardOutput = FileHandle.standardError
        process.standardError = FileHandle.standardError
        let replaced = self.replaced
        process.terminationHandler = { ended in
            if let jwks { try? FileManager.default.removeItem(at: jwks) }
            let reason = "the runtime exited with status \(ended.terminationStatus)"
            Task {
                // A runtime stopped to make way for another (a new build, a new start after a
                // failure) ended on purpose: nothing fails for it. Checked when the report would
                // be made, so an end that came just before ``stop(replacing:)`` is not reported
                // against the runtime that takes its place.
                guard !replaced.value.withLock({ $0 }) else { return }
                await server.runtimeEnded(reason)
            }
        }
        do {
            // A debug server waits on its inferior's signals (SIGCHLD, SIGTRAP), and a child inherits
            // the signal mask of the thread that starts it, where most signals are blocked.
            if debugger != nil { try Self.withNoSignalsBlocked { try process.run() } } else { try process.run() }
        } catch {
            if let jwks { try? FileManager.default.removeItem(at: jwks) }
            throw EmulatorError("cannot start \(executable.path): \(error.localizedDescription)")
        }
    }

    /// Runs `body` with this thread's signals unblocked, so a process it starts inherits none blocked.
    private static func withNoSignalsBlocked<T>(_ body: () throws -> T) rethrows -> T {
        #if canImport(Glibc)
            var none = sigset_t()
            var previous = sigset_t()
            sigemptyset(&none)
            pthread_sigmask(SIG_SETMASK, &none, &previous)
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        #endif
        return try body()
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
    /// - Parameter replacing: whether a new runtime takes its place (`serve --watch`, or a new start
    ///   after a failure): its end is then not reported to the server as the runtime's end.
    package func stop(replacing: Bool = false) async {
        if replacing { replaced.value.withLock { $0 = true } }
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
        dynamoDBEndpoint: HTTPURL?,
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
        environment[setting: .clock] = "request-time"
        environment[setting: .tableName] = options.tableName
        // The emulator's own functions seal with the development secret: the runtime shares it,
        // and so the table.
        environment[setting: .serverSecret] = ServerSecret.developmentText
        environment["LOG_LEVEL"] = logLevel
        if let dynamoDBEndpoint {
            environment[setting: .store] = "dynamodb"
            environment["AWS_ENDPOINT_URL_DYNAMODB"] = dynamoDBEndpoint.absoluteString
            environment["AWS_ACCESS_KEY_ID"] = environment["AWS_ACCESS_KEY_ID"] ?? "local"
            environment["AWS_SECRET_ACCESS_KEY"] = environment["AWS_SECRET_ACCESS_KEY"] ?? "local"
        } else {
            environment[setting: .store] = "memory"
        }
        if let limits = options.limitsFile { environment[setting: .limitsFile] = limits.path }
        if let maxAge = options.limitsMaxAge { environment[setting: .limitsMaxAge] = "\(Int(maxAge))" }
        let cognito = try options.cognitoConfiguration()
        environment["COGNITO_USER_POOL_ID"] = String(cognito.issuer.split(separator: "/").last ?? "")
        environment["COGNITO_REGION"] = cognito.region ?? "us-east-1"
        environment[setting: .cognitoIssuer] = (IssuerForm(issuer: cognito.issuer) ?? .original).rawValue
        environment["COGNITO_CLIENT_IDS"] = cognito.clientIds.joined(separator: ",")
        environment[setting: .tokenUse] = cognito.tokenUse.rawValue
        // The development pool is not a Cognito pool a runtime could call: deleteAccount erases usage only.
        environment[setting: .deleteCognitoUser] = "false"
        if let jwks = options.jwksFile {
            environment[setting: .jwksFile] = jwks.path
        } else if let key = options.developmentKey, let file = developmentJWKS {
            do {
                try key.jwks.write(to: file)
            } catch {
                throw EmulatorError("cannot write the development JWKS to \(file.path): \(error.localizedDescription)")
            }
            environment[setting: .jwksFile] = file.path
        }
        return environment
    }
}

/// A debug server a runtime is started under (`--debug`): Debian's `gdbserver`, or the Swift
/// toolchain's `lldb-server` in its gdbserver mode. The runtime stops before its first instruction
/// until a debugger attaches to the port and continues it.
package struct DebugServer: Sendable, Hashable {
    /// How long an invocation may take while debugging: Lambda's longest timeout, 900 seconds.
    package static let timeout: TimeInterval = 900

    /// `gdbserver` or `lldb-server`.
    package var executable: URL
    /// The loopback port it listens on.
    package var port: Int

    package init(executable: URL, port: Int) {
        self.executable = executable
        self.port = port
    }

    /// The first of `gdbserver` and `lldb-server` found on `PATH` (that order: Debian's `gdb`
    /// speaks only the first's dialect), or `nil`.
    package static func onPath(port: Int, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> DebugServer? {
        for name in ["gdbserver", "lldb-server"] {
            for folder in (path ?? "").split(separator: ":") where !folder.isEmpty {
                let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) {
                    return DebugServer(executable: candidate, port: port)
                }
            }
        }
        return nil
    }

    /// The server's arguments to run `runtime` and wait for a debugger on the port.
    func arguments(running runtime: URL) -> [String] {
        let address = "127.0.0.1:\(port)"
        if executable.lastPathComponent == "lldb-server" { return ["gdbserver", address, "--", runtime.path] }
        return [address, runtime.path]
    }

    /// How to attach, for the start-up message.
    package func attachHint(runtime: URL) -> String {
        """
        the runtime waits for a debugger on 127.0.0.1:\(port) (\(executable.lastPathComponent)); attach with
          gdb -ex 'target remote 127.0.0.1:\(port)' \(runtime.path)
          lldb \(runtime.path) -o 'gdb-remote 127.0.0.1:\(port)'
        set breakpoints, then continue; invocations may take \(Int(Self.timeout)) s while debugging
        """
    }
}

extension [String: String] {
    /// A runtime setting's value, by its name in the one list of them (`RuntimeSetting`).
    fileprivate subscript(setting setting: RuntimeSetting) -> String? {
        get { self[setting.rawValue] }
        set { self[setting.rawValue] = newValue }
    }
}
