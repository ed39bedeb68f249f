import EmulatorKit
import Foundation
import Hummingbird
import InkraJSON
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
    /// The DynamoDB-compatible endpoint over the in-memory table, when it is on.
    package let dynamoDB: LocalDynamoDB?
    /// The console in the browser, when it is on (`--console-port`).
    package let console: ConsoleServer?
    /// The local Cognito user pool's endpoint, when it is on (`--cognito-port`).
    package let cognito: CognitoEndpoint?
    /// `/_inkra/clock` on the API port.
    let clockEndpoint: ClockEndpoint
    private let logger: Logger
    private let accessLog: @Sendable (String) -> Void
    private let group = Mutex<ServiceGroup?>(nil)
    private let runtime = Mutex<LocalRuntime?>(nil)
    /// The endpoints, once every one listens (a replacement runtime is pointed at the same ones).
    private let listening = Mutex<ServeEndpoints?>(nil)
    private let runtimeFailure = Mutex<EmulatorError?>(nil)
    private let stopRequested = Mutex(false)
    /// Where `--bootstrap`'s runtime sends its X-Ray segments, for the console's timeline.
    private let segments: SegmentCollector?
    /// Starts `--bootstrap`'s runtime again for the invocation after its failure.
    private let restart: RuntimeRestart

    /// Sets the stack up behind its endpoints and starts the Runtime API.
    /// - Parameters:
    ///   - stack: the functions and their table.
    ///   - configuration: addresses, ports and the API's setup.
    ///   - logger: the servers' own logger.
    ///   - accessLog: where the access-log lines go (standard output by default).
    /// - Throws: ``EmulatorError`` when the Runtime API's port cannot be bound.
    package init(
        stack: EmulatorStack,
        configuration: ServeConfiguration,
        logger: Logger = Logger(label: "inkra.serve"),
        accessLog: @escaping @Sendable (String) -> Void = { print($0) }
    ) async throws {
        self.stack = stack
        self.configuration = configuration
        self.logger = logger
        self.accessLog = accessLog
        let runtimeAPI: RuntimeAPIServer
        do {
            runtimeAPI = try await RuntimeAPIServer(
                host: configuration.host, port: configuration.runtimeAPIPort,
                // Deadlines count real seconds, whatever the stack's clock says (a virtual clock moved
                // ahead): the runtime measures them on its own clock.
                functionName: configuration.runtimeFunction.rawValue,
                clock: configuration.virtualClock?.real ?? stack.options.clock)
        } catch {
            throw EmulatorError(
                "cannot listen on \(configuration.host):\(configuration.runtimeAPIPort) (--runtime-api-port): "
                    + Self.reason(error))
        }
        self.runtimeAPI = runtimeAPI
        let clockEndpoint = ClockEndpoint(clock: configuration.virtualClock, now: { stack.now() })
        self.clockEndpoint = clockEndpoint
        let function = configuration.runtimeFunction.rawValue
        await runtimeAPI.observeFailures { [logger] outcome in
            logger.error("\(Self.failureLine(outcome, function: function))")
        }
        // A runtime serve starts traces every invocation, as Lambda does a sampled one, and the
        // console shows the segments it sends beside the request.
        let segments = configuration.runtimeExecutable == nil ? nil : try await SegmentCollector()
        self.segments = segments
        let invoker = RuntimeInvoker(
            server: runtimeAPI, timeout: configuration.functionTimeout, traces: segments, now: stack.options.clock)
        let runtimeFunction = configuration.runtimeFunction
        let restart = RuntimeRestart()
        self.restart = restart
        let target: FunctionTarget = { function, event, time in
            guard function == runtimeFunction, runtimeAPI.takesInvocations else { return nil }
            // A runtime that failed to start or ended is started again for this invocation, as
            // Lambda gives the next invocation a new execution environment.
            await restart.ifFailed(runtimeAPI)
            return await invoker.invoke(event, recordedAt: time)
        }
        var gatewaySetup = configuration.gateway
        if configuration.consolePort != nil {
            let feed = ConsoleFeed()
            gatewaySetup.observers.append { feed.observe($0) }
            console = ConsoleServer(stack: stack, feed: feed, clock: clockEndpoint)
        } else {
            console = nil
        }
        gateway = LocalAPIGateway(stack: stack, configuration: gatewaySetup, target: target)
        lambda = LocalLambda(stack: stack, target: target)
        cognito = try Self.userPoolEndpoint(stack: stack, configuration: configuration)
        dynamoDB =
            configuration.dynamoDBPort != nil
            ? stack.memoryTable.map { LocalDynamoDB(table: $0, now: stack.options.clock) } : nil
        restart.install { [weak self] in await self?.restartFailedRuntime() }
    }

    /// Serves until a graceful shutdown: SIGINT or SIGTERM when `stopsOnSignals`, or ``shutdown()``. Then stops accepting
    /// connections, finishes the requests and `Event` invocations under way, stops the Runtime API
    /// and writes `--state`.
    /// - Parameters:
    ///   - stopsOnSignals: whether SIGINT and SIGTERM stop the server (the command line's case).
    ///   - ready: called once every endpoint listens, with their addresses.
    /// - Throws: ``EmulatorError`` naming the flag of a port that cannot be bound, or the state file
    ///   that cannot be written.
    package func run(
        stopsOnSignals: Bool = false,
        ready: @escaping @Sendable (ServeEndpoints) async -> Void = { _ in }
    ) async throws {
        let gate = ReadyGate(
            expected: (dynamoDB == nil ? 2 : 3) + (console == nil ? 0 : 1) + (cognito == nil ? 0 : 1))
        var services: [any Service] = [
            BoundService(
                application: application(port: configuration.apiPort, gate: gate, role: .api, limit: 10 << 20) {
                    // No capture list: a closure with one is `@concurrent`, and would leave the
                    // request's isolation (see `application`) for the generic executor.
                    request in
                    if request.path == ClockEndpoint.path { return self.clockEndpoint.respond(request) }
                    let served = await self.gateway.respond(request)
                    if self.configuration.accessLog { self.accessLog(served.accessLogLine(for: request)) }
                    return served.response
                } tooLarge: {
                    self.gateway.requestTooLarge()
                },
                flag: "--port", address: "\(configuration.host):\(configuration.apiPort)"),
            BoundService(
                application: application(
                    port: configuration.lambdaPort, gate: gate, role: .lambda, limit: LocalLambda.payloadLimit
                ) { request in
                    await self.lambda.respond(request)
                } tooLarge: {
                    LocalLambda.requestTooLarge()
                },
                flag: "--lambda-port", address: "\(configuration.host):\(configuration.lambdaPort)"),
        ]
        if let dynamoDB, let port = configuration.dynamoDBPort {
            services.append(
                BoundService(
                    application: application(port: port, gate: gate, role: .dynamoDB, limit: LocalDynamoDB.requestLimit)
                    { request in
                        await dynamoDB.respond(request)
                    } tooLarge: {
                        LocalDynamoDB.requestTooLarge()
                    },
                    flag: "--dynamodb-port", address: "\(configuration.host):\(port)"))
        }
        if let cognito, let port = configuration.cognitoPort {
            services.append(
                FallbackPortService(
                    host: configuration.host, port: port, fallsBack: configuration.cognitoPortFallsBack
                ) { port in
                    self.application(port: port, gate: gate, role: .cognito, limit: CognitoEndpoint.requestLimit) {
                        request in
                        await cognito.respond(request)
                    } tooLarge: {
                        CognitoEndpoint.requestTooLarge()
                    }
                })
        }
        if let console, let port = configuration.consolePort {
            services.append(
                BoundService(
                    application: console.application(host: configuration.host, port: port, logger: logger) {
                        await gate.bound(.console, port: $0)
                    },
                    flag: "--console-port", address: "\(configuration.host):\(port)"))
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map {
                    ServiceGroupConfiguration.ServiceConfiguration(
                        service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                        failureTerminationBehavior: .gracefullyShutdownGroup)
                },
                gracefulShutdownSignals: stopsOnSignals ? [.sigterm, .sigint] : [],
                logger: logger
            )
        )
        self.group.withLock { $0 = group }
        if stopRequested.withLock({ $0 }) { await group.triggerGracefulShutdown() }
        let runtimeAddress = runtimeAPI.address
        let host = configuration.host
        let hasDynamoDB = dynamoDB != nil
        let hasConsole = console != nil
        let hasCognito = cognito != nil
        let announce = Task {
            guard let ports = await gate.ports() else { return }
            var endpoints = ServeEndpoints(
                api: URL(string: "http://\(host):\(ports[.api] ?? 0)")!,
                lambda: URL(string: "http://\(host):\(ports[.lambda] ?? 0)")!,
                runtimeAPI: runtimeAddress,
                dynamoDB: hasDynamoDB ? URL(string: "http://\(host):\(ports[.dynamoDB] ?? 0)")! : nil,
                console: hasConsole ? URL(string: "http://\(host):\(ports[.console] ?? 0)/")! : nil
            )
            if hasCognito { endpoints.cognito = URL(string: "http://\(host):\(ports[.cognito] ?? 0)")! }
            self.trustUserPool(at: endpoints.cognito)
            self.listening.withLock { $0 = endpoints }
            await self.startRuntime(endpoints)
            await ready(endpoints)
        }
        let outcome: Result<Void, any Error>
        do {
            try await group.run()
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await gate.fail()
        await announce.value
        await lambda.finishEventInvocations()
        if let runtime = runtime.withLock({ $0 }) { await runtime.stop() }
        await runtimeAPI.shutdown()
        await segments?.shutdown()
        try saveStateWithUserPool()
        try outcome.get()
        if let failure = runtimeFailure.withLock({ $0 }) { throw failure }
    }

    /// Starts `--bootstrap` against the Runtime API, keeping usage in the DynamoDB endpoint so the
    /// runtime and the emulator share one table; a failure to start stops the server.
    private func startRuntime(_ endpoints: ServeEndpoints) async {
        guard let executable = configuration.runtimeExecutable else { return }
        runtimeAPI.expectRuntime()
        do {
            try launchRuntime(executable, endpoints)
        } catch {
            runtimeFailure.withLock { $0 = error }
            await shutdown()
        }
    }

    /// Starts a process of `executable` on the Runtime API, pointed at the endpoints' table.
    private func launchRuntime(_ executable: URL, _ endpoints: ServeEndpoints) throws(EmulatorError) {
        let started = try LocalRuntime(
            executable: executable, function: configuration.runtimeFunction, server: runtimeAPI,
            options: stack.options, dynamoDBEndpoint: endpoints.dynamoDB ?? stack.options.dynamoDBEndpoint,
            logLevel: configuration.runtimeLogLevel, debugger: configuration.runtimeDebugger,
            xrayDaemonAddress: segments?.address)
        runtime.withLock { $0 = started }
    }

    /// Replaces `--bootstrap`'s runtime with a new process of the same executable (a new build,
    /// `serve --watch`), between invocations: new invocations wait in the queue; those the old
    /// runtime holds are answered by it first; then it is stopped, its long polls dropped and its
    /// failure forgotten, and the new one takes the invocations waiting. The table, the pool and the
    /// clock are the server's, so they carry over.
    /// - Throws: ``EmulatorError`` when the new process cannot be started; invocations then fail
    ///   with that as the runtime's start-up error.
    package func replaceRuntime() async throws {
        guard let executable = configuration.runtimeExecutable, let endpoints = listening.withLock({ $0 }) else {
            return
        }
        await runtimeAPI.hold()
        await runtimeAPI.idle()
        try await relaunchRuntime(executable, endpoints)
    }

    /// Stops the runtime if it still runs and starts `executable` in its place; a start that fails
    /// is the runtime's start-up error for the invocations that wait.
    private func relaunchRuntime(_ executable: URL, _ endpoints: ServeEndpoints) async throws {
        if let old = runtime.withLock({ $0 }) { await old.stop(replacing: true) }
        await runtimeAPI.finishReplacement()
        do {
            try launchRuntime(executable, endpoints)
        } catch {
            runtime.withLock { $0 = nil }
            await runtimeAPI.failInitialization(type: "Runtime.StartError", message: error.message)
            throw error
        }
    }

    /// Starts `--bootstrap`'s runtime again when it failed to start or ended, as Lambda starts a
    /// new execution environment, Init and all, for the invocation after one whose Init failed or
    /// whose runtime exited; says so on the log. The old process is stopped if it still runs, its
    /// failure forgotten, and the invocation waits for the new one's first poll. Nothing happens
    /// without `--bootstrap` (a runtime started by hand is the user's to start again), before every
    /// endpoint listens, or when the failure was already cleared by another start.
    private func restartFailedRuntime() async {
        guard let executable = configuration.runtimeExecutable, let endpoints = listening.withLock({ $0 }),
            !stopRequested.withLock({ $0 }), await runtimeAPI.hasFailed
        else { return }
        let line =
            "starting the runtime again for the next invocation of \(configuration.runtimeFunction.rawValue), "
            + "as Lambda starts a new execution environment after a failed init or an exit"
        logger.warning("\(line)")
        // A start that fails is the waiting invocations' start-up error, set by the relaunch.
        try? await relaunchRuntime(executable, endpoints)
    }

    /// Starts a graceful shutdown, as SIGTERM does.
    package func shutdown() async {
        stopRequested.withLock { $0 = true }
        let group = self.group.withLock { $0 }
        await group?.triggerGracefulShutdown()
    }

    private func application(
        port: Int,
        gate: ReadyGate,
        role: ReadyGate.Role,
        limit: Int,
        respond: @escaping @Sendable (LocalHTTPRequest) async -> LocalHTTPResponse,
        tooLarge: @escaping @Sendable () -> LocalHTTPResponse
    ) -> Application<CallbackResponder<ServeRequestContext>> {
        let onEventLoops = EventLoopExecutor.isInstalled
        return Application(
            responder: CallbackResponder { request, context in
                guard let local = await LocalHTTPRequest.read(request, context: context, limit: limit) else {
                    return tooLarge().hummingbird
                }
                // Where the event loops run the tasks, the request stays isolated to its own.
                if onEventLoops, let isolation = EventLoopIsolation.of(context.eventLoop) {
                    return await isolation.run { await respond(local) }.hummingbird
                }
                return await respond(local).hummingbird
            },
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: port)),
            onServerRunning: { channel in await gate.bound(role, port: channel.localAddress?.port ?? port) },
            logger: logger
        )
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

/// One server of the group; a failure to bind its port names the flag that set it.
struct BoundService<App: Service>: Service, CustomStringConvertible {
    let application: App
    let flag: String
    let address: String

    var description: String { "server on \(address) (\(flag))" }

    func run() async throws {
        do {
            try await application.run()
        } catch {
            throw EmulatorError("cannot listen on \(address) (\(flag)): \(LocalServer.reason(error))")
        }
    }
}

/// Waits until every server listens, collecting the ports they bound.
actor ReadyGate {
    enum Role: Hashable { case api, lambda, dynamoDB, console, cognito }

    private let expected: Int
    private var bound: [Role: Int] = [:]
    private var failed = false
    private var waiters: [CheckedContinuation<[Role: Int]?, Never>] = []

    init(expected: Int) { self.expected = expected }

    func bound(_ role: Role, port: Int) {
        bound[role] = port
        guard bound.count == expected else { return }
        for waiter in waiters { waiter.resume(returning: bound) }
        waiters.removeAll()
    }

    func fail() {
        failed = true
        for waiter in waiters { waiter.resume(returning: nil) }
        waiters.removeAll()
    }

    /// The bound ports once all listen, or `nil` when the group stopped first.
    func ports() async -> [Role: Int]? {
        if bound.count == expected { return bound }
        if failed { return nil }
        return await withCheckedContinuation { waiters.append($0) }
    }
}
