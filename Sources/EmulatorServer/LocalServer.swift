import EmulatorKit
import Foundation
import HTTPText
import Hummingbird
import InkraJSON
import LocalUserPool
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import UnixSignals

/// `inkra-emulator serve`: the local API Gateway, the Lambda Invoke API, the Lambda Runtime API
/// and the DynamoDB-compatible endpoint over one stack, in one process.
package final class LocalServer: Sendable {
    /// The functions and their table.
    package let stack: EmulatorStack
    /// The setup.
    package let configuration: ServeConfiguration
    /// The local API Gateway.
    package let gateway: LocalAPIGateway
    /// The Lambda Invoke API.
    package let lambda: LocalLambda
    /// The Lambda Runtime API (already listening).
    package let runtimeAPI: RuntimeAPIServer
    /// The console in the browser, when it is on (`--console-port`).
    package let console: ConsoleServer?
    /// The local Cognito user pool's endpoint, when it is on (`--cognito-port`).
    package let cognito: CognitoEndpoint?
    private let logger: Logger
    private let group = Mutex<ServiceGroup?>(nil)
    private let runtime = Mutex<LocalRuntime?>(nil)
    /// The endpoints, once every one listens (a replacement runtime is pointed at the same ones).
    private let listening = Mutex<ServeEndpoints?>(nil)
    private let runtimeFailure = Mutex<EmulatorError?>(nil)
    private let stopRequested = Mutex(false)
    /// Where `--bootstrap`'s runtime sends its X-Ray segments, for the console's timeline.
    private let segments: SegmentCollector?

    /// The HTTP endpoints that are on, in the order they start.
    let endpoints: [any ServeEndpoint]

    /// Sets `stack` up behind the endpoints `configuration` turns on and starts the Runtime API;
    /// `logger` is the servers' own, `accessLog` takes the access-log lines (standard output by default).
    /// - Throws: ``EmulatorError`` when the Runtime API's port cannot be bound.
    package init(
        stack: EmulatorStack, configuration: ServeConfiguration, logger: Logger = Logger(label: "inkra.serve"),
        accessLog: @escaping @Sendable (String) -> Void = { print($0) }
    ) async throws {
        self.stack = stack
        self.configuration = configuration
        self.logger = logger
        let runtimeAPI: RuntimeAPIServer
        let runtimePort = configuration.ports[.runtimeAPI] ?? EndpointRole.runtimeAPI.defaultPort
        do {
            runtimeAPI = try await RuntimeAPIServer(
                host: configuration.host, port: runtimePort,
                // Deadlines count real seconds, whatever the stack's clock says (a virtual clock moved
                // ahead): the runtime measures them on its own clock.
                functionName: configuration.runtimeFunction.rawValue,
                clock: configuration.virtualClock?.real ?? stack.options.clock)
        } catch {
            throw EmulatorError(
                "cannot listen on \(configuration.host):\(runtimePort) (--runtime-api-port): " + Self.reason(error))
        }
        self.runtimeAPI = runtimeAPI
        let clock = ClockEndpoint(clock: configuration.virtualClock, now: { stack.now() })
        let runtimeFunction = configuration.runtimeFunction
        await runtimeAPI.queue.observeFailures { [logger] outcome in
            logger.error("\(Self.failureLine(outcome, function: runtimeFunction.rawValue))")
        }
        // A runtime serve starts traces every invocation, as Lambda does a sampled one, and the
        // console shows the segments it sends beside the request.
        let segments = configuration.runtimeExecutable == nil ? nil : try await SegmentCollector()
        self.segments = segments
        let invoker = RuntimeInvoker(
            server: runtimeAPI, timeout: configuration.functionTimeout, traces: segments, now: stack.options.clock)
        let restart = RuntimeRestart()
        let target: FunctionTarget = { function, event, time in
            guard function == runtimeFunction, runtimeAPI.queue.takesInvocations.withLock({ $0 }) else { return nil }
            // A runtime that failed to start or ended is started again for this invocation, as
            // Lambda gives the next invocation a new execution environment.
            await restart.ifFailed(runtimeAPI)
            return await invoker.invoke(event, recordedAt: time)
        }
        var gatewaySetup = configuration.gateway
        let feed = configuration.ports[.console].map { _ in ConsoleFeed() }
        if let feed { gatewaySetup.observers.append { feed.observe($0) } }
        let console = feed.map { ConsoleServer(stack: stack, feed: $0, clock: clock) }
        let gateway = LocalAPIGateway(stack: stack, configuration: gatewaySetup, target: target)
        let lambda = LocalLambda(stack: stack, target: target)
        let cognito = try Self.userPoolEndpoint(stack: stack, configuration: configuration)
        let dynamoDB = configuration.ports[.dynamoDB].flatMap { _ in
            stack.memoryTable.map { LocalDynamoDB(table: $0, now: stack.options.clock) }
        }
        (self.console, self.gateway, self.lambda, self.cognito) = (console, gateway, lambda, cognito)
        let logsAccess = configuration.accessLog
        // No capture list: a closure with one is `@concurrent`, and would leave the request's
        // isolation (see `LocalEndpoint`) for the generic executor.
        let api = LocalEndpoint(role: .api, limit: 10 << 20, tooLarge: gateway.requestTooLarge) { request in
            if request.path == ClockEndpoint.path { return clock.respond(request) }
            let served = await gateway.respond(request)
            if logsAccess { accessLog(served.accessLogLine(for: request)) }
            return served.response
        }
        let endpoints: [(any ServeEndpoint)?] = [
            api,
            LocalEndpoint(
                role: .lambda, limit: LocalLambda.payloadLimit, tooLarge: LocalLambda.requestTooLarge,
                answer: lambda.respond),
            dynamoDB.map {
                LocalEndpoint(
                    role: .dynamoDB, limit: LocalDynamoDB.requestLimit, tooLarge: LocalDynamoDB.requestTooLarge,
                    answer: $0.respond(_:))
            },
            cognito.map {
                LocalEndpoint(
                    role: .cognito, limit: CognitoEndpoint.requestLimit, tooLarge: CognitoEndpoint.requestTooLarge,
                    answer: $0.respond)
            },
            console,
        ]
        self.endpoints = endpoints.compactMap { $0 }
        restart.install { [weak self] in await self?.restartFailedRuntime() }
    }

    /// Serves until a graceful shutdown (SIGINT or SIGTERM when `stopsOnSignals`, or ``shutdown()``),
    /// then finishes the requests and `Event` invocations under way and writes `--state`. `ready` is
    /// called once every endpoint listens, with their addresses.
    /// - Throws: ``EmulatorError`` naming the flag of a port that cannot be bound, or the state file
    ///   that cannot be written.
    package func run(stopsOnSignals: Bool = false, ready: @escaping @Sendable (ServeEndpoints) async -> Void = { _ in })
        async throws
    {
        let (bound, report) = AsyncStream.makeStream(of: (EndpointRole, Int).self)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: endpoints.map {
                    ServiceGroupConfiguration.ServiceConfiguration(
                        service: EndpointService(
                            endpoint: $0, host: configuration.host,
                            port: configuration.ports[$0.role] ?? $0.role.defaultPort,
                            fallsBack: configuration.freePortWhenTaken.contains($0.role), report: report, logger: logger
                        ),
                        successTerminationBehavior: .gracefullyShutdownGroup,
                        failureTerminationBehavior: .gracefullyShutdownGroup)
                },
                gracefulShutdownSignals: stopsOnSignals ? [.sigterm, .sigint] : [], logger: logger))
        self.group.withLock { $0 = group }
        if stopRequested.withLock({ $0 }) { await group.triggerGracefulShutdown() }
        let runtimeAddress = runtimeAPI.address
        let host = configuration.host
        let count = endpoints.count
        let announce = Task {
            var ports: [EndpointRole: Int] = [:]
            for await (role, port) in bound {
                ports[role] = port
                if ports.count == count { break }
            }
            guard ports.count == count else { return }
            func url(_ role: EndpointRole, _ path: String = "") -> HTTPURL? {
                ports[role].map { HTTPURL(string: "http://\(host):\($0)\(path)")! }
            }
            let endpoints = ServeEndpoints(
                api: url(.api)!, lambda: url(.lambda)!, runtimeAPI: runtimeAddress, dynamoDB: url(.dynamoDB),
                console: url(.console, "/"), cognito: url(.cognito))
            self.trustUserPool(at: endpoints.cognito)
            self.listening.withLock { $0 = endpoints }
            await self.startRuntime()
            await ready(endpoints)
        }
        let outcome: Result<Void, any Error>
        do {
            try await group.run()
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        report.finish()
        await announce.value
        await lambda.finishEventInvocations()
        if let runtime = runtime.withLock({ $0 }) { await runtime.stop() }
        await runtimeAPI.shutdown()
        await segments?.shutdown()
        // `--state`: the table and the local user pool's users, groups and issued tokens.
        try stack.saveState(userPool: cognito?.pool.snapshot)
        try outcome.get()
        if let failure = runtimeFailure.withLock({ $0 }) { throw failure }
    }

    /// Starts `--bootstrap` on the Runtime API, sharing the DynamoDB endpoint's table; a failure stops the server.
    private func startRuntime() async {
        guard configuration.runtimeExecutable != nil else { return }
        runtimeAPI.queue.expectRuntime()
        do {
            try launchRuntime()
        } catch {
            runtimeFailure.withLock { $0 = error }
            await shutdown()
        }
    }

    /// Starts a process of `--bootstrap` on the Runtime API, pointed at the endpoints' table.
    private func launchRuntime() throws(EmulatorError) {
        guard let executable = configuration.runtimeExecutable, let endpoints = listening.withLock({ $0 }) else {
            return
        }
        let started = try LocalRuntime(
            executable: executable, function: configuration.runtimeFunction, server: runtimeAPI,
            options: stack.options, dynamoDBEndpoint: endpoints.dynamoDB ?? stack.options.dynamoDBEndpoint,
            logLevel: configuration.runtimeLogLevel, debugger: configuration.runtimeDebugger,
            xrayDaemonAddress: segments?.address)
        runtime.withLock { $0 = started }
    }

    /// Replaces `--bootstrap`'s runtime with a new process of it (`serve --watch`'s new build) between
    /// invocations: the old one answers those it holds, new ones wait for the new process.
    /// - Throws: ``EmulatorError`` when the new process cannot start (the invocations' start-up error).
    package func replaceRuntime() async throws {
        guard configuration.runtimeExecutable != nil, listening.withLock({ $0 }) != nil else { return }
        await runtimeAPI.queue.hold()
        await runtimeAPI.queue.idle()
        try await relaunchRuntime()
    }

    /// Stops the runtime if it still runs and starts another in its place.
    private func relaunchRuntime() async throws {
        if let old = runtime.withLock({ $0 }) { await old.stop(replacing: true) }
        await runtimeAPI.queue.finishReplacement()
        do {
            try launchRuntime()
        } catch {
            runtime.withLock { $0 = nil }
            await runtimeAPI.failInitialization(type: "Runtime.StartError", message: error.message)
            throw error
        }
    }

    /// Starts `--bootstrap`'s runtime again after it failed to start or ended, as Lambda starts a new
    /// execution environment for the next invocation; a runtime started by hand is the user's.
    private func restartFailedRuntime() async {
        guard configuration.runtimeExecutable != nil, listening.withLock({ $0 }) != nil,
            !stopRequested.withLock({ $0 }), await runtimeAPI.queue.hasFailed
        else { return }
        let line =
            "starting the runtime again for the next invocation of \(configuration.runtimeFunction.rawValue), "
            + "as Lambda starts a new execution environment after a failed init or an exit"
        logger.warning("\(line)")
        // A start that fails is the waiting invocations' start-up error, set by the relaunch.
        try? await relaunchRuntime()
    }

    /// Starts a graceful shutdown, as SIGTERM does.
    package func shutdown() async {
        stopRequested.withLock { $0 = true }
        let group = self.group.withLock { $0 }
        await group?.triggerGracefulShutdown()
    }

    /// What the log says when the runtime fails to start or ends: what it reported, in one line
    /// of printable text (at most 300 characters of the runtime's message), and what follows.
    static func failureLine(_ outcome: RuntimeOutcome, function: String) -> String {
        func printable(_ text: String) -> String {
            String(
                String.UnicodeScalarView(
                    text.unicodeScalars.prefix(300).map { $0.properties.isWhitespace ? " " : $0 }
                        .filter { $0.value >= 0x20 && $0.value != 0x7F }))
        }
        switch outcome {
        case .initializationFailed(let type, let body):
            let json = try? JSONParser.parse(body)
            let message = json?["errorMessage"]?.string ?? String(decoding: body, as: UTF8.self)
            return "the runtime failed to start (\(printable(json?["errorType"]?.string ?? type)): "
                + "\(printable(message))); invocations of \(function) fail with it, as Lambda fails them, "
                + "and the next one starts the runtime again"
        case .runtimeExited(let reason):
            return
                "\(printable(reason)); the invocations of \(function) it held fail with Runtime.ExitError, "
                + "and the next one starts the runtime again"
        default:
            return "the runtime stopped answering"
        }
    }

    static func reason(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("Address already in use") || text.contains("EADDRINUSE") || text.contains("errno: 98") {
            return "the port is in use"
        }
        return text
    }
}

/// An endpoint's server in the group. A failure to bind its port names the flag that set it; when
/// the port is in use and `fallsBack` (a port nobody asked for), it listens on a free one instead.
struct EndpointService: Service, CustomStringConvertible {
    let endpoint: any ServeEndpoint
    let host: String
    let port: Int
    let fallsBack: Bool
    /// Told each port bound.
    let report: AsyncStream<(EndpointRole, Int)>.Continuation
    let logger: Logger

    var description: String { "server on \(host):\(port) (\(endpoint.role.flag))" }

    func run() async throws {
        do {
            try await serve()
        } catch  where fallsBack && port != 0 && LocalServer.reason(error) == "the port is in use" {
            try await EndpointService(
                endpoint: endpoint, host: host, port: 0, fallsBack: false, report: report, logger: logger
            ).run()
        } catch {
            throw EmulatorError(
                "cannot listen on \(host):\(port) (\(endpoint.role.flag)): \(LocalServer.reason(error))")
        }
    }

    private func serve() async throws {
        let application = Application(
            responder: CallbackResponder { (request: Request, context: ServeRequestContext) in
                await endpoint.respond(request, context: context)
            },
            configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
            onServerRunning: { channel in report.yield((endpoint.role, channel.localAddress?.port ?? port)) },
            logger: logger)
        try await withGracefulShutdownHandler {
            try await application.run()
        } onGracefulShutdown: {
            endpoint.finish()
        }
    }
}
