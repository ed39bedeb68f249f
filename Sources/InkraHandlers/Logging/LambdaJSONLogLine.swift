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
            ("timestamp", timestamp), ("level", level.rawValue.uppercased()), ("message", message), ("logger", label),
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

    /// A JSON string of `text`.
    package static func quote(_ text: String) -> String { JSONValue.string(text).jsonString }
}
