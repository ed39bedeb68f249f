import EmulatorKit
import EmulatorServer
import Foundation
import InkraHandlers
import InkraJSON

/// The runtime processes of `run-runtime`, each polling a Runtime API of its own on loopback, as
/// Lambda runs several execution environments of a function, each with its own Runtime API.
/// Runtime `n` (from 1) serves the replay's lane `n - 1` (``Replayer/lane``).
struct RuntimeFleet {
    /// One runtime process and the Runtime API it polls.
    struct Runtime {
        /// Its number, from 1, as messages name it.
        var number: Int
        /// How many runtimes the fleet has.
        var count: Int
        var server: RuntimeAPIServer
        var process: LocalRuntime
        var invoker: RuntimeInvoker

        /// How messages name it: "the runtime", or "runtime 2 of 3" in a fleet of several.
        var name: String { RuntimeFleet.name(number, of: count) }
    }

    /// How messages name runtime `number` of `count`.
    static func name(_ number: Int, of count: Int) -> String {
        count == 1 ? "the runtime" : "runtime \(number) of \(count)"
    }

    /// The runtimes, runtime `n` at `n - 1`.
    let runtimes: [Runtime]
    /// Where the runtimes send their X-Ray segments, as Lambda's daemon would receive them.
    let segments: SegmentCollector?

    /// Starts `count` runtimes of `executable`, one after another; when one cannot start, stops
    /// those already started and throws.
    /// - Parameters:
    ///   - count: how many runtimes.
    ///   - firstPort: runtime `n` listens on `firstPort + n - 1`; 0 picks a free port for each.
    ///   - executable: the runtime executable.
    ///   - function: the function they serve.
    ///   - options: the emulator's options (pool, keys, table, limits).
    ///   - timeout: the function's timeout, in seconds.
    ///   - logLevel: the runtimes' `LOG_LEVEL`.
    ///   - debugger: a debug server to start the runtimes under (`--debug`, one runtime).
    /// - Throws: ``UsageFailure`` naming the runtime that could not start, and why.
    static func start(
        count: Int, firstPort: Int, executable: URL, function: FunctionName, options: EmulatorOptions,
        timeout: Double, logLevel: String, debugger: DebugServer? = nil
    ) async throws -> RuntimeFleet {
        var runtimes: [Runtime] = []
        let segments: SegmentCollector
        do {
            segments = try await SegmentCollector()
        } catch {
            throw UsageFailure("cannot listen for the runtimes' X-Ray segments on 127.0.0.1: \(error)")
        }
        func abandon() async {
            await RuntimeFleet(runtimes: runtimes, segments: segments).stop()
        }
        for number in 1...count {
            let name = Self.name(number, of: count)
            let server: RuntimeAPIServer
            do {
                server = try await RuntimeAPIServer(
                    port: firstPort == 0 ? 0 : firstPort + number - 1, functionName: function.rawValue,
                    clock: options.clock)
            } catch {
                await abandon()
                throw UsageFailure("\(name): \(error)")
            }
            do {
                let process = try LocalRuntime(
                    executable: executable, function: function, server: server, options: options,
                    dynamoDBEndpoint: options.dynamoDBEndpoint, logLevel: logLevel, debugger: debugger,
                    xrayDaemonAddress: segments.address)
                runtimes.append(
                    Runtime(
                        number: number, count: count, server: server, process: process,
                        invoker: RuntimeInvoker(server: server, timeout: timeout, traces: segments, now: options.clock))
                )
            } catch {
                await server.shutdown()
                await abandon()
                throw UsageFailure("\(name): \(error.message)")
            }
        }
        return RuntimeFleet(runtimes: runtimes, segments: segments)
    }

    /// The invoker of each lane's runtime, lane `n` at `n`.
    var invokers: [RuntimeInvoker] { runtimes.map(\.invoker) }

    /// What went wrong with each runtime so far, one line each: a start-up failure it posted to
    /// `/runtime/init/error`, or its process ending before ``stop()``. Empty when all is well.
    func problems() async -> [String] {
        var problems: [String] = []
        for runtime in runtimes {
            let name = "\(runtime.name) (pid \(runtime.process.processIdentifier))"
            if case .initializationFailed(let type, let body)? = await runtime.server.initializationFailure {
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
    func stop() async {
        await withTaskGroup(of: Void.self) { group in
            for runtime in runtimes {
                group.addTask {
                    await runtime.process.stop()
                    await runtime.server.shutdown()
                }
            }
        }
        await segments?.shutdown()
    }
}
