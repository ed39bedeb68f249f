import ArgumentParser
import EmulatorKit
import EmulatorServer
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

            Examples, from the repository root:
              swift build --product bootstrap
              swift run inkra-emulator run-runtime .build/debug/bootstrap \\
                --function generateQuestions events
            """
    )

    @Argument(help: "The runtime executable (e.g. .build/release/bootstrap).")
    var executable: String

    @Option(help: "authorizer, checkUsage, generateQuestions or deleteAccount.")
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
            throw ValidationError("--function must be \(FunctionName.names), not \"\(function)\"")
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
        let process: LocalRuntime
        do {
            process = try LocalRuntime(
                executable: URL(fileURLWithPath: executable), function: name, server: server, options: options,
                dynamoDBEndpoint: options.dynamoDBEndpoint, logLevel: common.logLevel)
        } catch {
            await server.shutdown()
            throw UsageFailure(error.message)
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
        let tally = await replayer.replay(targets, jobs: 1) { record, _ in
            Output.out(json ? ReplayReporter.json(for: record).jsonString : ReplayReporter.line(for: record))
        }
        let elapsed = ContinuousClock.now - started
        await process.stop()
        await server.shutdown()
        if !json { Output.out(ReplayReporter.summary(tally, elapsed: elapsed)) }
        if case .initializationFailed(let type, let body)? = await server.initializationFailure {
            Output.err("the runtime failed to start (\(type)): \(String(decoding: body, as: UTF8.self))")
            throw ExitCode(1)
        }
        if tally.events == 0 {
            Output.err("no events for \(name.rawValue) in \(targets.map(\.relativePath).joined(separator: ", "))")
            throw ExitCode(2)
        }
        if tally.failed > 0 { throw ExitCode(1) }
    }
}
