import CoreMetrics
import Foundation
import InkraHandlers
import InkraJSON

/// Sends swift-metrics counters to CloudWatch as Embedded Metric Format lines on standard output,
/// one line per increment, so rate-limit hits, quota refusals and authorization failures become
/// CloudWatch metrics without an agent or an API call.
enum MetricsSetup {
    static func bootstrap(function: String, namespace: String) {
        MetricsSystem.bootstrap(EmbeddedMetricsFactory(function: function, namespace: namespace))
    }
}

struct EmbeddedMetricsFactory: MetricsFactory {
    let function: String
    let namespace: String

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        EmbeddedCounter(name: label, dimensions: [("function", function)] + dimensions, namespace: namespace)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        EmbeddedRecorder(name: label, dimensions: [("function", function)] + dimensions, namespace: namespace)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        EmbeddedTimer(name: label, dimensions: [("function", function)] + dimensions, namespace: namespace)
    }

    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}

/// One EMF line: `{"_aws":{"Timestamp":…,"CloudWatchMetrics":[…]},"function":"…","<name>":value}`.
enum EmbeddedMetricLine {
    static func write(name: String, value: JSONValue, unit: String, dimensions: [(String, String)], namespace: String) {
        var root: JSONValue = [
            "_aws": [
                "Timestamp": .number(Int(Date().timeIntervalSince1970 * 1000)),
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
        FileHandle.standardOutput.write(Data((root.jsonString + "\n").utf8))
    }
}

final class EmbeddedCounter: CounterHandler, Sendable {
    let name: String
    let dimensions: [(String, String)]
    let namespace: String

    init(name: String, dimensions: [(String, String)], namespace: String) {
        self.name = name
        self.dimensions = dimensions
        self.namespace = namespace
    }

    func increment(by amount: Int64) {
        EmbeddedMetricLine.write(
            name: name, value: .number(String(amount)), unit: "Count", dimensions: dimensions, namespace: namespace)
    }

    func reset() {}
}

final class EmbeddedRecorder: RecorderHandler, Sendable {
    let name: String
    let dimensions: [(String, String)]
    let namespace: String

    init(name: String, dimensions: [(String, String)], namespace: String) {
        self.name = name
        self.dimensions = dimensions
        self.namespace = namespace
    }

    func record(_ value: Int64) { record(Double(value)) }

    func record(_ value: Double) {
        EmbeddedMetricLine.write(
            name: name, value: .number(String(value)), unit: "None", dimensions: dimensions, namespace: namespace)
    }
}

final class EmbeddedTimer: TimerHandler, Sendable {
    let name: String
    let dimensions: [(String, String)]
    let namespace: String

    init(name: String, dimensions: [(String, String)], namespace: String) {
        self.name = name
        self.dimensions = dimensions
        self.namespace = namespace
    }

    func recordNanoseconds(_ duration: Int64) {
        let milliseconds = Double(duration) / 1_000_000
        EmbeddedMetricLine.write(
            name: name, value: .number(String(milliseconds)), unit: "Milliseconds", dimensions: dimensions,
            namespace: namespace)
    }
}
