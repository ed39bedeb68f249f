import EmulatorKit
import EmulatorServer
import Foundation
import InkraJSON
import InkraTestSupport
import InkraTime
import Testing

/// The built `bootstrap` keeps its resident memory flat however many invocations a warm sandbox
/// serves (issue #50): each comes with a trace id of its own, as Lambda sends them, and nothing of
/// one may stay behind. A runtime that exported each as `_X_AMZN_TRACE_ID` grew by ~140 bytes a
/// call, since glibc keeps every value `setenv` replaced: ~12.6 MB between the 10,000th and the
/// 100,000th call, far past the bound here (BENCHMARKS.md has the figures).
@Suite("bootstrap's memory over 100,000 invocations with distinct trace ids")
struct BootstrapMemoryTests {
    static let invocations = 100_000
    /// Where the first reading is taken: past start-up's allocations and the first calls' caches.
    static let warm = 10_000
    /// The growth allowed between the two readings: under a third of the old leak's.
    static let bound = 4 * 1024 * 1024
    /// Invocations handed to the Runtime API at once, so the runtime never waits for the next.
    static let inFlight = 4

    /// `VmRSS` of `/proc/<pid>/status`, in bytes.
    static func residentBytes(of process: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        let kilobytes = try #require(line.split(separator: " ").dropFirst().first.flatMap { Int($0) })
        return kilobytes * 1024
    }

    /// A trace header of its own for call `index`, as Lambda writes them (untraced: `Sampled=0`).
    static func traceHeader(_ index: Int) -> String {
        let root = String(format: "1-%08x-%024x", 1_795_000_000 + index / 1000, index)
        return "Root=\(root);Parent=\(String(format: "%016x", index));Sampled=0"
    }

    /// A call `checkUsage` refuses without reaching a store: API Gateway's event with no caller.
    static let event = JSONValue.object(["httpMethod": "GET", "path": "/usage"]).jsonBytes

    @Test(
        "Resident memory grows by less than 4 MB from the 10,000th to the 100,000th call",
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "reads /proc"))
    func flatOverDistinctTraceIDs() async throws {
        let server = try await RuntimeAPIServer(functionName: "checkUsage", clock: { Timestamp.now })
        let environment = BuiltBootstrap.environment(
            "checkUsage", runtimeAPI: server.address, ["LOG_LEVEL": "error"])
        let runtime = Process()
        runtime.executableURL = ChildProcess.built("bootstrap")
        runtime.environment = environment
        runtime.standardOutput = FileHandle.nullDevice
        runtime.standardError = FileHandle.nullDevice
        try runtime.run()
        let ended = Self.ended(runtime)

        var readings: [Int] = []
        var failures: [String] = []
        var next = 0
        var done = 0
        await withTaskGroup(of: RuntimeOutcome.self) { group in
            func send() {
                let index = next
                next += 1
                group.addTask {
                    await server.invoke(Self.event, timeout: Patience.seconds, traceHeader: Self.traceHeader(index))
                }
            }
            for _ in 0..<Self.inFlight { send() }
            while let outcome = await group.next() {
                done += 1
                switch outcome {
                case .response, .error: break
                default: if failures.count < 5 { failures.append("\(outcome)") }
                }
                if done == Self.warm || done == Self.invocations {
                    readings.append((try? Self.residentBytes(of: runtime.processIdentifier)) ?? -1)
                }
                if next < Self.invocations { send() }
            }
        }
        await server.shutdown()
        // Without its Runtime API the runtime retries, then exits on its own.
        _ = await ended

        #expect(failures.isEmpty, "\(failures)")
        #expect(readings.count == 2 && readings.allSatisfy { $0 > 0 }, "\(readings)")
        let growth = (readings.last ?? 0) - (readings.first ?? 0)
        print(
            "bootstrap VmRSS after \(Self.warm) calls: \(readings.first ?? 0) bytes; after \(Self.invocations): "
                + "\(readings.last ?? 0) bytes; growth \(growth) bytes")
        #expect(growth < Self.bound, "VmRSS grew by \(growth) bytes over \(Self.invocations - Self.warm) calls")
    }

    /// Waits for `process` to end on a thread of its own, off Swift's cooperative pool.
    static func ended(_ process: Process) -> Task<Int32, Never> {
        Task {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    process.waitUntilExit()
                    continuation.resume(returning: process.terminationStatus)
                }
            }
        }
    }
}
