import ArgumentParser
import EmulatorKit
import EmulatorServer
import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import Logging

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

            --jobs N starts N runtime processes (default: every core), each polling a Runtime API of its own, \
            as Lambda runs several execution environments; with --runtime-api-port P, runtime n listens on \
            P + n - 1. Events of one user, or sharing an Idempotency-Key, always go to the same runtime, in \
            input order, so the output and the exit status are those of --jobs 1. Each runtime keeps its own \
            table, so an event that ties users two runtimes already hold (one Idempotency-Key sent by two \
            users first seen apart) cannot run as --jobs 1 runs it: the replay stops before it, saying so, \
            with exit status 1 (use --jobs 1, or --dynamodb-endpoint, where the runtimes share one table).

            Examples, from the repository root:
              swift build --product bootstrap
              swift run inkra-emulator run-runtime .build/debug/bootstrap \\
                --function generateQuestions events
              swift run inkra-emulator run-runtime .build/release/bootstrap \\
                --function checkUsage day.jsonl --jobs 2 --json

            --debug starts the runtime under gdbserver (or lldb-server) and waits for a debugger; with a \
            debug build, in another terminal:
              gdb -ex 'target remote 127.0.0.1:2345' .build/debug/bootstrap

            --watch replays the events, then waits: when a file under --watch-path changes it runs \
            --watch-build and, when the build succeeds, replays the events again with the new runtime \
            (a fresh table each time), printing each replay's lines and summary; a build that fails prints \
            the compiler's output and waits for the next change. Ctrl-C stops it.
              swift run inkra-emulator run-runtime .build/debug/bootstrap --function checkUsage events --watch
            """
    )

    @Argument(help: "The runtime executable (e.g. .build/release/bootstrap).")
    var executable: String

    @Option(help: "The function the runtime serves (its name in any case).")
    var function: Choice<FunctionName>

    @Argument(help: "Event files and folders (default: events).")
    var paths: [String] = []

    @Option(
        name: .customLong("runtime-api-port"),
        help: "The first runtime's Runtime API port; runtime n listens on it + n - 1 (0 picks a free one for each).")
    var runtimeAPIPort: Int = 0

    @Option(help: "How many runtime processes run events at once (default: the cores); 1 runs them in turn.")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "The function's timeout in seconds.")
    var timeout: Double = 3

    @Flag(help: "Print one JSON object per event instead of text.")
    var json = false

    @Flag(
        help: """
            Start the runtime under a debug server (gdbserver, else lldb-server, from PATH) and wait for a \
            debugger to attach and continue it; one runtime, and invocations may take 900 s.
            """)
    var debug = false

    @Option(name: .customLong("debug-port"), help: "The debug server's loopback port, with --debug.")
    var debugPort = 2345

    @Option(name: .customLong("debug-server"), help: "The debug server (gdbserver or lldb-server), with --debug.")
    var debugServer: String?

    @Flag(
        help: """
            Replay again with a new build whenever a watched file changes (rebuilding with --watch-build); \
            a failed build waits for the next change. Ctrl-C stops it.
            """)
    var watch = false

    @OptionGroup(title: "Watching") var watching: WatchBuildOptions

    @OptionGroup var common: CommonOptions

    func validate() throws {
        try watching.validate(watch: watch)
        if watch && debug { throw ValidationError("give --watch or --debug, not both") }
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ValidationError("\(executable) is not an executable file")
        }
        if debug {
            guard (1...65_535).contains(debugPort) else {
                throw ValidationError("--debug-port must be a port from 1 to 65535, not \(debugPort)")
            }
            if let debugServer, !FileManager.default.isExecutableFile(atPath: debugServer) {
                throw ValidationError("--debug-server \(debugServer) is not an executable file")
            }
            guard debugger != nil else {
                throw ValidationError(
                    "--debug needs gdbserver (apt-get install gdbserver) or the toolchain's lldb-server on PATH, "
                        + "or --debug-server PATH")
            }
        }
        if jobs < 1 { throw ValidationError("--jobs must be at least 1, not \(jobs)") }
        guard runtimeAPIPort == 0 || (runtimeAPIPort > 0 && runtimeAPIPort + jobs - 1 <= 65_535) else {
            throw ValidationError(
                "--runtime-api-port must leave room for --jobs \(jobs) ports (runtime n listens on it + n - 1) "
                    + "up to 65535, or be 0, not \(runtimeAPIPort)")
        }
    }

    func run() async throws {
        LogSetup.bootstrap(level: common.logLevel.value)
        try UsageFailure.requireExisting(paths)
        guard watch else {
            let status = try await replayOnce()
            if status != 0 { throw ExitCode(status) }
            return
        }
        do {
            _ = try await replayOnce()
        } catch {
            Output.err("inkra-emulator: the replay could not run: \(error)")
        }
        let command = self
        let loop = WatchLoop(
            roots: watching.watchedPaths.map { URL(fileURLWithPath: $0) },
            build: watching.buildCommand(for: executable),
            done: "replayed the events with the new build"
        ) {
            Output.err("inkra-emulator: replaying the events with the new build")
            do {
                _ = try await command.replayOnce()
            } catch {
                Output.err("inkra-emulator: the replay could not run: \(error)")
            }
        }
        await loop.run()
    }

    /// Starts the runtimes, replays the events through them, stops them.
    /// - Returns: the exit status the replay calls for: 0, 1 (a failure, a mismatch, a runtime's
    ///   problem, a stopped replay) or 2 (no events).
    func replayOnce() async throws -> Int32 {
        let name = function.value
        let options = try common.emulatorOptions()
        let stack = try await EmulatorStack(options: options)
        let debugger = debug ? self.debugger : nil
        let fleet = try await RuntimeFleet.start(
            count: debugger == nil ? jobs : 1, firstPort: runtimeAPIPort, executable: URL(fileURLWithPath: executable),
            function: name, options: options, timeout: debugger == nil ? timeout : DebugServer.timeout,
            logLevel: common.logLevel.value.rawValue, debugger: debugger)
        if let debugger { Output.err(debugger.attachHint(runtime: URL(fileURLWithPath: executable))) }
        for runtime in fleet.runtimes {
            Output.err(
                "\(runtime.name): \(executable) (pid \(runtime.process.processIdentifier)) polling http://\(runtime.server.address)"
            )
        }

        var replayer = Replayer(stack: stack)
        replayer.keepsResults = false
        if options.dynamoDBEndpoint == nil {
            // Each runtime keeps its own in-memory table, so events of the other functions would not
            // see its writes: replay only this function's events, and keep each user's events on one
            // runtime. On DynamoDB all share the table, and the other functions run in the emulator
            // as API Gateway would call them.
            replayer.functions = [name]
            replayer.stickyLanes = true
            Output.err(
                "note: replaying only \(name.rawValue) events (pass --dynamodb-endpoint to run the others beside it)")
        }
        let invokers = fleet.runtimes.map(\.invoker)
        replayer.target = { function, event, time in
            function == name ? await invokers[Replayer.lane].invoke(event, recordedAt: time) : nil
        }
        let targets = (paths.isEmpty ? ["events"] : paths).map { URL(fileURLWithPath: $0) }
        let progress = Progress()
        let started = ContinuousClock.now
        let tally = await replayer.replay(targets, jobs: fleet.runtimes.count) { record, total in
            progress.print(record, json: json, total: total)
        }
        progress.clear()
        let elapsed = ContinuousClock.now - started
        let problems = await fleet.problems()
        await fleet.stop()
        if !json { Output.out(ReplayReporter.summary(tally, elapsed: elapsed)) }
        for problem in problems { Output.err(problem) }
        if let stopped = tally.stopped {
            Output.err(
                """
                stopped before \(stopped.event): it shares a user or an Idempotency-Key with events that \
                runtimes \(stopped.lanes.map { String($0 + 1) }.joined(separator: " and ")) each ran, and each \
                runtime keeps its own table, so no runtime can run it as a sequential replay would; \
                replay with --jobs 1, or share one table with --dynamodb-endpoint
                """)
            return 1
        }
        if !problems.isEmpty { return 1 }
        if tally.events == 0 {
            Output.err("no events for \(name.rawValue) in \(targets.map(\.relativePath).joined(separator: ", "))")
            return 2
        }
        return tally.failed > 0 ? 1 : 0
    }
}

extension RunRuntimeCommand {
    /// The debug server `--debug` starts the runtime under: `--debug-server`, else one on PATH.
    var debugger: DebugServer? {
        if let debugServer { return DebugServer(executable: URL(fileURLWithPath: debugServer), port: debugPort) }
        return DebugServer.onPath(port: debugPort)
    }
}
