import Foundation

/// One benchmark's result: nanoseconds per operation over many samples.
struct Measurement: Sendable {
    var name: String
    /// Per-operation times, one per sample, sorted.
    var samples: [Double]
    /// Operations in each sample.
    var batch: Int

    var median: Double { percentile(50) }
    var minimum: Double { samples.first ?? 0 }

    func percentile(_ p: Double) -> Double {
        guard !samples.isEmpty else { return 0 }
        let rank = Int((p / 100 * Double(samples.count - 1)).rounded())
        return samples[min(max(rank, 0), samples.count - 1)]
    }
}

/// A release-mode harness: warm-up, then `samples` timed batches of `batch` operations; each
/// sample's time is divided by the batch, and the figures are the median and percentiles of those.
enum Harness {
    static func measure(
        _ name: String,
        batch: Int,
        samples: Int,
        warmup: Int = 1,
        _ body: () async throws -> Void
    ) async rethrows -> Measurement {
        for _ in 0..<(warmup * batch) { try await body() }
        var times: [Double] = []
        times.reserveCapacity(samples)
        for _ in 0..<samples {
            let started = ContinuousClock.now
            for _ in 0..<batch { try await body() }
            times.append(nanoseconds(ContinuousClock.now - started) / Double(batch))
        }
        return Measurement(name: name, samples: times.sorted(), batch: batch)
    }

    /// Like ``measure(_:batch:samples:warmup:_:)`` for synchronous work.
    static func measureSync(
        _ name: String,
        batch: Int,
        samples: Int,
        warmup: Int = 1,
        _ body: () throws -> Void
    ) rethrows -> Measurement {
        for _ in 0..<(warmup * batch) { try body() }
        var times: [Double] = []
        times.reserveCapacity(samples)
        for _ in 0..<samples {
            let started = ContinuousClock.now
            for _ in 0..<batch { try body() }
            times.append(nanoseconds(ContinuousClock.now - started) / Double(batch))
        }
        return Measurement(name: name, samples: times.sorted(), batch: batch)
    }

    /// One figure from a single timed run of `operations` operations (throughput figures).
    static func once(_ name: String, operations: Int, _ body: () async throws -> Void) async rethrows -> Measurement {
        let started = ContinuousClock.now
        try await body()
        let perOperation = nanoseconds(ContinuousClock.now - started) / Double(operations)
        return Measurement(name: name, samples: [perOperation], batch: operations)
    }

    static func nanoseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }
}

/// Formats nanoseconds for people.
func human(_ nanoseconds: Double) -> String {
    switch nanoseconds {
    case ..<1_000: String(format: "%.0f ns", nanoseconds)
    case ..<1_000_000: String(format: "%.2f µs", nanoseconds / 1_000)
    case ..<1_000_000_000: String(format: "%.2f ms", nanoseconds / 1_000_000)
    default: String(format: "%.2f s", nanoseconds / 1_000_000_000)
    }
}

/// The report: one table row per measurement, then named figures and ratios.
final class Report {
    private(set) var rows: [Measurement] = []
    private(set) var figures: [(String, String)] = []

    func add(_ measurement: Measurement) {
        rows.append(measurement)
        FileHandle.standardError.write(
            Data("  \(measurement.name): median \(human(measurement.median))\n".utf8))
    }

    func figure(_ name: String, _ value: String) {
        figures.append((name, value))
        FileHandle.standardError.write(Data("  \(name): \(value)\n".utf8))
    }

    func row(_ name: String) -> Measurement? { rows.first { $0.name == name } }

    var markdown: String {
        var lines = [
            "| benchmark | median | p90 | p99 | min | samples × batch |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for row in rows {
            lines.append(
                "| \(row.name) | \(human(row.median)) | \(human(row.percentile(90))) | \(human(row.percentile(99))) "
                    + "| \(human(row.minimum)) | \(row.samples.count) × \(row.batch) |")
        }
        if !figures.isEmpty {
            lines.append("")
            lines.append("| figure | value |")
            lines.append("|---|---:|")
            for (name, value) in figures { lines.append("| \(name) | \(value) |") }
        }
        return lines.joined(separator: "\n")
    }
}
