import CoreMetrics
import InkraHandlers
import InkraJSON
import InkraTime

/// Sends swift-metrics counters to CloudWatch as Embedded Metric Format lines on standard output,
/// one line per increment, so rate-limit hits, quota refusals and authorization failures become
/// CloudWatch metrics without an agent or an API call.
enum MetricsSetup {
    static func bootstrap(function: String, namespace: String, now: @escaping @Sendable () -> Timestamp) {
        MetricsSystem.bootstrap(EmbeddedMetricsFactory(function: function, namespace: namespace, now: now))
    }
}

struct EmbeddedMetricsFactory: MetricsFactory {
    let function: String
    let namespace: String
    let now: @Sendable () -> Timestamp

    private func line(_ label: String, _ dimensions: [(String, String)]) -> EmbeddedMetricLine {
        EmbeddedMetricLine(
            name: label, dimensions: [("function", function)] + dimensions, namespace: namespace, now: now)
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        EmbeddedCounter(line: line(label, dimensions))
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        EmbeddedRecorder(line: line(label, dimensions))
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        EmbeddedTimer(line: line(label, dimensions))
    }

    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}

/// One metric's EMF lines: `{"_aws":{"Timestamp":…,"CloudWatchMetrics":[…]},"function":"…","<name>":value}`.
struct EmbeddedMetricLine: Sendable {
    let name: String
    let dimensions: [(String, String)]
    let namespace: String
    let now: @Sendable () -> Timestamp

    func write(_ value: JSONValue, unit: String) {
        var root: JSONValue = [
            "_aws": [
                "Timestamp": .number(Int(now().timeIntervalSince1970 * 1000)),
                "CloudWatchMetrics": [
                    [
                        "Namespace": .string(namespace),
                        "Dimensions": [.array(dimensions.map { .string($0.0) })],
                        "Metrics": [["Name": .string(name), "Unit": .string(unit)]],
                    ]
                ],
            ]
        ]
        for (key, dimension) in dimensions { root.set(.string(dimension), at: [key]) }
        root.set(value, at: [name])
        Console.out(root.jsonString)
    }
}

final class EmbeddedCounter: CounterHandler, Sendable {
    let line: EmbeddedMetricLine
    init(line: EmbeddedMetricLine) { self.line = line }
    func increment(by amount: Int64) { line.write(.number(String(amount)), unit: "Count") }
    func reset() {}
}

final class EmbeddedRecorder: RecorderHandler, Sendable {
    let line: EmbeddedMetricLine
    init(line: EmbeddedMetricLine) { self.line = line }
    func record(_ value: Int64) { record(Double(value)) }
    func record(_ value: Double) { line.write(.number(String(value)), unit: "None") }
}

final class EmbeddedTimer: TimerHandler, Sendable {
    let line: EmbeddedMetricLine
    init(line: EmbeddedMetricLine) { self.line = line }
    func recordNanoseconds(_ duration: Int64) {
        line.write(.number(String(Double(duration) / 1_000_000)), unit: "Milliseconds")
    }
}
