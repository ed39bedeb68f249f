import EmulatorKit
import Foundation

/// `inkra-emulator run-runtime` of the replay workload's `checkUsage` events through real
/// `bootstrap` processes: `--jobs 1` (one runtime) against `--jobs 2` (two, each with a Runtime
/// API of its own), runs alternating, the median of three each.
struct RunRuntimeBenchmarks {
    let key: DevelopmentKey
    let report: Report
    /// How many `checkUsage` events run.
    let events: Int
    let users: Int
    let emulator: URL
    let bootstrap: URL

    func run() throws {
        // Two of the workload's five kinds of event are checkUsage's, a round of `users` each.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-bench-run-runtime.jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        FileHandle.standardError.write(Data("  writing \(events) checkUsage events to \(file.path)\n".utf8))
        try ReplayBenchmarks(key: key, report: report, eventCount: 0, users: users, emulatorBinary: nil)
            .writeLines(events * 5 / 2, to: file)
        var seconds: [Int: [Double]] = [1: [], 2: []]
        var statuses: [Int: Set<Int32>] = [1: [], 2: []]
        for _ in 0..<3 {
            for jobs in [1, 2] {
                let started = ContinuousClock.now
                let status = try Child.spawn(
                    emulator.path,
                    [
                        "run-runtime", bootstrap.path, "--function", "checkUsage", file.path, "--jobs", String(jobs),
                    ],
                    environment: ProcessInfo.processInfo.environment
                ).wait()
                seconds[jobs]?.append(Harness.nanoseconds(ContinuousClock.now - started) / 1e9)
                statuses[jobs]?.insert(status)
            }
        }
        func median(_ jobs: Int) -> Double { (seconds[jobs] ?? [0, 0, 0]).sorted()[1] }
        for jobs in [1, 2] {
            report.figure(
                "`inkra-emulator run-runtime --function checkUsage --jobs \(jobs)` (\(events) events, \(users) users)",
                String(
                    format: "exit %@, %.2f s, %.0f events/s (median of 3, alternating)",
                    (statuses[jobs] ?? []).sorted().map(String.init).joined(separator: "/"), median(jobs),
                    Double(events) / median(jobs)))
        }
        report.figure("`run-runtime` --jobs 2 rate ÷ --jobs 1 rate", String(format: "%.2f×", median(1) / median(2)))
    }
}
