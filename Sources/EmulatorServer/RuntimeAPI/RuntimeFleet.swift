import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON

/// The runtime processes of `run-runtime`, each polling a Runtime API of its own on loopback, as
/// Lambda runs several execution environments of a function, each with its own Runtime API.
/// Runtime `n` (from 1) serves the replay's lane `n - 1` (``Replayer/lane``).
package struct RuntimeFleet: Sendable {
    /// One runtime process and the Runtime API it polls.
    package struct Runtime: Sendable {
        /// How messages name it: "the runtime", or "runtime 2 of 3" in a fleet of several.
        package var name: String
        package var server: RuntimeAPIServer
        package var process: LocalRuntime
        package var invoker: RuntimeInvoker
    }

    /// The runtimes, runtime `n` at `n - 1`.
    package let runtimes: [Runtime]
    /// Where the runtimes send their X-Ray segments, as Lambda's daemon would receive them.
    let segments: SegmentCollector

    /// Starts `count` runtimes of `executable` serving `function`, one after another; runtime `n`
    /// listens on `firstPort + n - 1` (0: a free port each). `options` are the emulator's, `timeout`
    /// the function's in seconds, `debugger` a debug server to start them under (`--debug`).
    /// - Throws: ``EmulatorError`` naming the runtime that could not start (those started are stopped).
    package static func start(
        count: Int, firstPort: Int, executable: URL, function: FunctionName, options: EmulatorOptions,
        timeout: Double, logLevel: String, debugger: DebugServer? = nil
    ) async throws -> RuntimeFleet {
        let segments: SegmentCollector
        do {
            segments = try await SegmentCollector()
        } catch {
            throw EmulatorError("cannot listen for the runtimes' X-Ray segments on 127.0.0.1: \(error)")
        }
        var runtimes: [Runtime] = []
        for number in 1...count {
            let name = count == 1 ? "the runtime" : "runtime \(number) of \(count)"
            var server: RuntimeAPIServer?
            do {
                let started = try await RuntimeAPIServer(
                    port: firstPort == 0 ? 0 : firstPort + number - 1, functionName: function.rawValue,
                    clock: options.clock)
                server = started
                let process = try LocalRuntime(
                    executable: executable, function: function, server: started, options: options,
                    dynamoDBEndpoint: options.dynamoDBEndpoint, logLevel: logLevel, debugger: debugger,
                    xrayDaemonAddress: segments.address)
                let invoker = RuntimeInvoker(server: started, timeout: timeout, traces: segments, now: options.clock)
                runtimes.append(Runtime(name: name, server: started, process: process, invoker: invoker))
            } catch {
                await server?.shutdown()
                await RuntimeFleet(runtimes: runtimes, segments: segments).stop()
                throw EmulatorError("\(name): \(error)")
            }
        }
        return RuntimeFleet(runtimes: runtimes, segments: segments)
    }

    /// What went wrong with each runtime so far, one line each: a start-up failure it posted to
    /// `/runtime/init/error`, or its process ending before ``stop()``. Empty when all is well.
    package func problems() async -> [String] {
        var problems: [String] = []
        for runtime in runtimes {
            let name = "\(runtime.name) (pid \(runtime.process.processIdentifier))"
            if case .initializationFailed(let type, let body)? = await runtime.server.queue.initializationFailure {
                let message = (try? JSONParser.parse(body))?["errorMessage"]?.string
                problems.append(
                    "\(name) failed to start (\(type)): \(message ?? String(decoding: body, as: UTF8.self))")
            } else if let ending = runtime.process.ending {
                problems.append("\(name) \(ending) before the replay ended")
            }
        }
        return problems
    }

    /// Stops every process (SIGTERM, then SIGKILL) and every server, all at once.
    package func stop() async {
        await withTaskGroup(of: Void.self) { group in
            for runtime in runtimes {
                group.addTask {
                    await runtime.process.stop()
                    await runtime.server.shutdown()
                }
            }
        }
        await segments.shutdown()
    }
}
