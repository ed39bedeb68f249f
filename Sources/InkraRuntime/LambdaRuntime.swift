import CoreMetrics
import InkraHandlers
import InkraJSON
import InkraTime
import InkraTracing
import LambdaRuntimeAPI
import Logging

/// The Lambda custom runtime (`provided.al2023`): serves the function `_HANDLER` names, built
/// once at start-up from the environment, until the Runtime API says to stop.
///
/// A `bootstrap` executable is its `@main` calling ``run(_:clock:)`` with its functions:
///
/// ```swift
/// @main
/// enum Bootstrap {
///     static func main() async { await LambdaRuntime.run(.standard, clock: { Timestamp.now }) }
/// }
/// ```
public enum LambdaRuntime {
    /// Serves the function of `functions` that `_HANDLER` names, and never returns: the process
    /// exits when start-up fails (reported to the Runtime API's `/init/error`) or when the Runtime
    /// API is unreachable or says to stop.
    /// - Parameters:
    ///   - functions: the functions the runtime can serve.
    ///   - clock: the real time, which the composition root (`bootstrap`'s `main`) reads and hands
    ///     down; nothing in the runtime reads it otherwise.
    public static func run(_ functions: FunctionList, clock: @escaping @Sendable () -> Timestamp) async -> Never {
        await serve(functions, clock: clock)
    }

    /// The runtime, off the main actor that `main` runs on: the package's async functions run on
    /// their caller's executor, and the main actor's would put every resumption through the main
    /// queue.
    @concurrent private static func serve(
        _ functions: FunctionList, clock: @escaping @Sendable () -> Timestamp
    ) async -> Never {
        let systemClock = clock
        let environment = Console.environment
        guard let address = environment["AWS_LAMBDA_RUNTIME_API"], !address.isEmpty else {
            Console.error(
                "bootstrap: AWS_LAMBDA_RUNTIME_API is not set; run me under Lambda or inkra-emulator run-runtime")
            Console.exit(1)
        }
        let client: RuntimeClient
        do {
            client = try RuntimeClient(address: address, now: systemClock)
        } catch {
            Console.error("bootstrap: \(error)")
            Console.exit(1)
        }
        // The loop's warnings (a dropped connection, a retry) take a logger when they come, not
        // now: the logging system is set up below, once the configuration names the log format,
        // and a logger made before it would write swift-log's default text lines for good, even
        // under AWS_LAMBDA_LOG_FORMAT=JSON.
        let loop = RuntimeLoop(client: client) { Logger(label: "inkra.bootstrap").warning("\($0)") }

        let configuration: Configuration
        let function: any EventHandler
        let recorder: Recorder?
        let logger: Logger
        let daemon: XRayDaemonClient?
        do {
            configuration = try Configuration(environment: environment)
            let format = configuration.logFormat
            let level = configuration.logLevel
            LoggingSystem.bootstrap { label in
                LambdaLogHandler(json: format == .json, logLevel: level, label: label, now: systemClock)
            }
            MetricsSetup.bootstrap(function: environment["_HANDLER"] ?? "unknown", namespace: "Inkra", now: systemClock)
            logger = Logger(label: "inkra.\(environment["_HANDLER"] ?? "bootstrap")")
            logger.info("bootstrap \(InkraVersion.current) serving \(environment["_HANDLER"] ?? "no _HANDLER")")
            let shared = SharedDependencies(configuration: configuration, clock: systemClock)
            function = try await FunctionAssembly.function(
                named: environment["_HANDLER"],
                in: functions,
                configuration: configuration,
                clock: systemClock,
                logger: logger,
                shared: shared
            )
            // A recording's pseudonyms are keyed by the server's secret, which every function reads
            // when it records (the one a store reads, read once).
            recorder =
                configuration.recordEvents
                ? Recorder(
                    handler: environment["_HANDLER"], json: configuration.logFormat == .json,
                    secret: try await shared.secret(), functions: functions, clock: systemClock)
                : nil
            daemon = try configuration.xrayDaemonAddress.map { try XRayDaemonClient(address: $0) }
            Counter(label: MetricName.coldStart.rawValue).increment()
        } catch {
            let message = "\(error)"
            Console.error("bootstrap: cannot start: \(message)")
            await loop.reportInitializationFailure(
                InvocationFailure(errorType: "Runtime.InitError", errorMessage: message))
            Console.exit(1)
        }

        do {
            let requestClock = configuration.requestClock
            let name = "## \(environment["_HANDLER"] ?? "function")"
            try await loop.run { lambda, event in
                let parsed = Result { () throws(JSONParseError) in try JSONParser.parse(event) }
                    .mapError(FunctionError.notJSON)
                let header = lambda.traceID.flatMap(TraceHeader.init)
                let traced = daemon != nil && header?.sampled == true && header?.parent != nil
                let trace =
                    traced
                    ? header.map { TraceRecorder(header: $0, now: { systemClock().timeIntervalSince1970 }) } : nil
                defer {
                    if let trace, let daemon, let document = XRaySegments.document(trace) {
                        daemon.send(document.jsonBytes)
                    }
                }
                var context = invocationContext(
                    lambda, event: try? parsed.get(), configuration: configuration, logger: logger,
                    requestClock: requestClock,
                    systemClock: systemClock)
                context.trace = Trace(recorder: trace)
                // The function's span; the function's own spans nest under it.
                return try await context.scope.span(name) { span, scope in
                    var inSpan = context
                    inSpan.trace = scope.trace
                    let answer: JSONValue
                    if let recorder {
                        answer = try await recorder.invoke(function, parsed, context: inSpan)
                    } else {
                        answer = try await invoke(function, parsed, context: inSpan)
                    }
                    if trace != nil { span.status = answer["statusCode"]?.int }
                    return answer.jsonBytes
                }
            }
        } catch {
            // A 500 from the Runtime API ("Non-recoverable state. Runtime should exit promptly"), or
            // a connection that stayed gone after the retries.
            logger.critical(
                "the Runtime API is unreachable or in a non-recoverable state; stopping",
                metadata: ["error": "\(error)"])
            Console.exit(1)
        }
        Console.exit(0)
    }

    /// The context of one invocation.
    ///
    /// Every step of the request gets what remains before the earlier of Lambda's deadline and
    /// API Gateway's integration timeout (counted from when API Gateway received the request),
    /// less a margin; clean-up gets a short budget past that. The request's time is the
    /// invocation's start, or under `INKRA_CLOCK=request-time` (the emulator's `run-runtime` and
    /// `serve`) the time in API Gateway's fields of the event, where the emulator puts a replayed
    /// event's recorded time. Its logger is `logger` with the request id and the trace's root in
    /// its metadata, so every line the function logs names the invocation (``LambdaLogHandler``).
    static func invocationContext(
        _ lambda: LambdaRuntimeAPI.InvocationContext, event: JSONValue?, configuration: Configuration,
        logger: Logger, requestClock: Bool, systemClock: @Sendable () -> Timestamp
    ) -> InkraHandlers.InvocationContext {
        let start = systemClock()
        let clock = ContinuousClock.now
        let received = event.flatMap(RequestTime.received(in:))
        let work = configuration.requestDeadline(
            lambdaDeadline: lambda.deadline, start: start, gatewayStart: requestClock ? nil : received)
        let cleanup = configuration.cleanupDeadline(work: work, lambdaDeadline: lambda.deadline)
        func instant(_ date: Timestamp) -> ContinuousClock.Instant {
            clock.advanced(by: .seconds(date.timeIntervalSince(start)))
        }
        var logger = logger
        logger[metadataKey: LambdaLogHandler.requestIDKey] = "\(lambda.requestID)"
        if let root = lambda.traceID.flatMap(TraceHeader.init)?.root {
            logger[metadataKey: LambdaLogHandler.traceIDKey] = "\(root)"
        }
        return InkraHandlers.InvocationContext(
            requestID: lambda.requestID,
            time: requestClock ? received ?? start : start,
            deadline: instant(work),
            cleanupDeadline: instant(cleanup),
            traceID: lambda.traceID,
            logger: logger
        )
    }

    /// Runs one invocation: its answer, or the failure the runtime reports (an event that is not
    /// JSON fails as the function's own parse would name it).
    private static func invoke(
        _ function: any EventHandler, _ event: Result<JSONValue, FunctionError>,
        context: InkraHandlers.InvocationContext
    ) async throws -> JSONValue {
        do throws(FunctionError) {
            return try await function.handle(event.get(), context: context)
        } catch {
            throw InvocationFailure(errorType: error.errorType, errorMessage: error.errorMessage)
        }
    }
}
