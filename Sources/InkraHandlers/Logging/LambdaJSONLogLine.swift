import InkraJSON
import Logging

/// One line of Lambda's JSON log format ("Configuring JSON and plain text log formats",
/// https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-logformat.html):
/// `{"timestamp":…,"level":…,"message":…,"logger":…,"requestId":…,"traceId":…}`, then the
/// line's metadata in key order, without a line feed. `bootstrap`'s log handler writes these; the
/// emulator's bill sizes them.
package enum LambdaJSONLogLine {
    /// The format's own fields, which metadata of the same name does not repeat.
    package static let reserved: Set<String> = ["timestamp", "level", "message", "logger", "requestId", "traceId"]

    /// The line.
    /// - Parameters:
    ///   - requestID: the invocation's request id (none outside an invocation).
    ///   - traceID: its trace header, when it has one.
    package static func line(
        timestamp: String, level: Logger.Level, message: String, logger label: String, requestID: String?,
        traceID: String?, metadata: Logger.Metadata
    ) -> String {
        var fields: [(String, String)] = [
            ("timestamp", timestamp), ("level", name(of: level)), ("message", message), ("logger", label),
        ]
        if let requestID {
            fields.append(("requestId", requestID))
            if let traceID { fields.append(("traceId", traceID)) }
        }
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) where !reserved.contains(key) {
            fields.append((key, "\(value)"))
        }
        return "{" + fields.map { "\(quote($0.0)):\(quote($0.1))" }.joined(separator: ",") + "}"
    }

    /// Lambda's name of a swift-log level: `TRACE`, `DEBUG`, `INFO`, `WARN`, `ERROR` or `FATAL`, the
    /// levels of Lambda's log-level filtering ("Log-level filtering",
    /// https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-log-level.html).
    /// Lambda reads a `level` it does not know as `INFO`, so `WARNING` or `CRITICAL` would be
    /// dropped by a function whose application log level is `WARN`; swift-log's `notice`, which
    /// Lambda has no name for, is `INFO`.
    package static func name(of level: Logger.Level) -> String {
        switch level {
        case .trace: "TRACE"
        case .debug: "DEBUG"
        case .info, .notice: "INFO"
        case .warning: "WARN"
        case .error: "ERROR"
        case .critical: "FATAL"
        }
    }

    /// A JSON string of `text`.
    package static func quote(_ text: String) -> String { JSONValue.string(text).jsonString }
}
