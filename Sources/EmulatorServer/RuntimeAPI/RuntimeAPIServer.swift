import EmulatorKit
import Foundation
import Hummingbird
import InkraJSON
import InkraTime
import Logging
import ServiceLifecycle
import Synchronization

/// A local Lambda Runtime API (`/2018-06-01/runtime/…`) on loopback, so a real custom runtime
/// such as `bootstrap` can be run and fed events as Lambda would: long-polled `next`, `response`,
/// `error` and `init/error`, with `Lambda-Runtime-Aws-Request-Id`, `Lambda-Runtime-Deadline-Ms`,
/// `Lambda-Runtime-Invoked-Function-Arn` and `Lambda-Runtime-Trace-Id`.
///
/// A Hummingbird application (``RuntimeAPIRoutes``) over EmulatorKit's queue of invocations; it
/// listens once `init` returns, and until ``shutdown()``.
package final class RuntimeAPIServer: RuntimeAPIEndpoint {
    /// The invocations, and the runtime's state (attached, failed, held while replaced).
    package let queue: RuntimeQueue
    private let group: ServiceGroup
    private let running: Task<(any Error)?, Never>
    /// The function's ARN, as Lambda sends it.
    package let functionARN: String
    /// The bound port.
    package let port: Int

    /// The address to give the runtime as `AWS_LAMBDA_RUNTIME_API`.
    package var address: String { "127.0.0.1:\(port)" }

    /// Starts the server on `host:port` (0 picks a free port) for the function `functionName` (its
    /// ARN), setting deadlines by `clock`; `logger` is quiet but for errors by default.
    /// - Throws: ``EmulatorError`` when the port cannot be bound.
    package init(
        host: String = "127.0.0.1", port: Int = 0, functionName: String = "function",
        clock: @escaping @Sendable () -> Timestamp, logger: Logger = RuntimeAPIServer.quietLogger
    ) async throws {
        let queue = RuntimeQueue(now: clock)
        let functionARN = "arn:aws:lambda:us-east-1:123456789012:function:\(functionName)"
        let (bound, announce) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: RuntimeAPIRoutes(queue: queue).router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), backlog: 32),
            onServerRunning: { channel in announce.yield(channel.localAddress?.port ?? port) },
            logger: logger
        )
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [application],
                gracefulShutdownSignals: [], logger: logger))
        let running = Task { () -> (any Error)? in
            defer { announce.finish() }
            do {
                try await group.run()
                return nil
            } catch {
                return error
            }
        }
        var ports = bound.makeAsyncIterator()
        guard let boundPort = await ports.next() else {
            let error = await running.value
            throw EmulatorError(
                "cannot listen for the Runtime API on \(host):\(port): \(error.map { "\($0)" } ?? "the server stopped")"
            )
        }
        self.queue = queue
        self.group = group
        self.running = running
        self.functionARN = functionARN
        self.port = boundPort
    }

    /// A logger that tells only errors.
    package static var quietLogger: Logger {
        var logger = Logger(label: "inkra.runtime-api")
        logger.logLevel = .error
        return logger
    }

    /// Hands an event to the runtime and waits for its outcome.
    package func invoke(_ event: [UInt8], timeout: TimeInterval = 3) async -> RuntimeOutcome {
        await queue.invoke(event, timeout: timeout, functionARN: functionARN)
    }

    /// Hands an event to the runtime under the trace header `traceHeader` (`Root=…;Parent=…;Sampled=1`
    /// for a traced invocation) and waits for its outcome.
    package func invoke(_ event: [UInt8], timeout: TimeInterval, traceHeader: String) async -> RuntimeOutcome {
        await queue.invoke(event, timeout: timeout, functionARN: functionARN, traceHeader: traceHeader)
    }

    /// Tells waiting invocations that the runtime process ended.
    package func runtimeEnded(_ reason: String) async {
        await queue.runtimeEnded(reason)
    }

    /// Records a start-up failure the server saw itself (a runtime that could not be started).
    package func failInitialization(type: String, message: String) async {
        let body = JSONValue.object(["errorType": .string(type), "errorMessage": .string(message)]).jsonBytes
        await queue.failInitialization(.initializationFailed(type: type, body: body))
    }

    /// Whether a runtime is attached: polling for its next invocation, or working on one.
    package var isAttached: Bool {
        get async {
            guard queue.hasBeenPolled.withLock({ $0 }) else { return false }
            return await queue.isAttached
        }
    }

    /// Stops listening and closes the runtime's connections: a long poll under way is dropped
    /// unanswered, as the old sandbox's connection would be.
    package func shutdown() async {
        // The long polls end first: they would hold the graceful shutdown up.
        await queue.close()
        await group.triggerGracefulShutdown()
        _ = await running.value
    }
}
