import InkraHandlers
import InkraJSON
import InkraTime
import InkraUsage
import Logging

/// Log lines as Lambda shows them: plain text, or one JSON object per line in Lambda's JSON log
/// format (`timestamp`, `level`, `message`, `requestId`) when `AWS_LAMBDA_LOG_FORMAT=JSON`. Levels
/// are named as Lambda's log-level filtering reads them (`WARN`, `FATAL`:
/// `LambdaJSONLogLine.name(of:)`), in both formats.
///
/// A line written through an invocation's logger (the `InvocationContext`'s, which the runtime makes
/// for each invocation with the request id and the trace's root in its metadata, under
/// ``requestIDKey`` and ``traceIDKey``) carries its request id and trace id: in the JSON
/// format as `requestId` and `traceId`, as Lambda's JSON format names them ("Configuring JSON and
/// plain text log formats",
/// https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-logformat.html); in the
/// Text format as the second, tab-separated column, after the timestamp, as Lambda's own runtimes
/// print it (`2024-05-01T10:00:00.000Z\t8476a536-…\tINFO\t…`).
struct LambdaLogHandler: LogHandler {
    var json: Bool
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    let label: String
    /// The clock of the timestamps.
    let now: @Sendable () -> Timestamp

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The metadata key of the invocation's request id (`Lambda-Runtime-Aws-Request-Id`).
    static let requestIDKey = "requestId"
    /// The metadata key of the invocation's trace root (`1-…`), when Lambda sent a trace header.
    static let traceIDKey = "traceId"

    func log(event: LogEvent) {
        var merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let requestID = merged.removeValue(forKey: Self.requestIDKey).map { "\($0)" }
        let traceID = merged.removeValue(forKey: Self.traceIDKey).map { "\($0)" }
        let timestamp = CivilTime.iso8601Milliseconds(now())
        var line: String
        if json {
            line = LambdaJSONLogLine.line(
                timestamp: timestamp, level: event.level, message: "\(event.message)", logger: label,
                requestID: requestID, traceID: traceID, metadata: merged)
        } else {
            let request = requestID.map { "\t\(Self.escaped($0))" } ?? ""
            line =
                "\(timestamp)\(request)\t\(LambdaJSONLogLine.name(of: event.level))\t\(Self.escaped(label)): "
                + Self.escaped("\(event.message)")
            if !merged.isEmpty {
                line +=
                    " "
                    + merged.sorted(by: { $0.key < $1.key }).map {
                        "\(Self.escaped($0.key))=\(Self.escaped("\($0.value)"))"
                    }
                    .joined(separator: " ")
            }
        }
        Console.error(line)
    }

    /// `text` for one line of the Text format: a backslash and every control character (C0, DEL,
    /// C1, and the line and paragraph separators) written as an escape (`\\`, `\n`, `\r`, `\t`,
    /// `\u{…}`), so whatever a message or a value holds, a log event stays one line: CloudWatch
    /// splits events at line breaks, and a second line could be read as a metric or a recording.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var output = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                output.append(scalar)
                continue
            }
            let escape: String
            switch scalar {
            case "\\": escape = "\\\\"
            case "\n": escape = "\\n"
            case "\r": escape = "\\r"
            case "\t": escape = "\\t"
            default: escape = "\\u{\(String(scalar.value, radix: 16))}"
            }
            output.append(contentsOf: escape.unicodeScalars)
        }
        return String(output)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
            || scalar == "\\"
    }
}
