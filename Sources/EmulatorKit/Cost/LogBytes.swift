import InkraHandlers
import Logging
import Synchronization

/// Counts the bytes of the log lines the functions write, as the JSON lines CloudWatch Logs would
/// ingest from the deployed runtime (template.yaml's `LogFormat: JSON`, at Lambda's default `INFO`
/// level): `{"timestamp":…,"level":…,"message":…,"logger":…,"requestId":…,"traceId":…}` and the
/// line's metadata, plus its line feed, as `bootstrap`'s log handler writes them (one formatter,
/// ``LambdaJSONLogLine``).
///
/// The request and trace ids are those of a deployed invocation in length (a UUID; an X-Ray
/// `Root=…;Parent=…;Sampled=1` header). Not counted: Lambda's own platform records (`START`,
/// `END`, `REPORT`), the runtime's metric (EMF) lines and recordings.
package final class LogBytes: Sendable {
    private let bytes = Mutex(0)
    /// The level below which lines are not written.
    package let level: Logger.Level

    /// A counter of lines at `level` and above.
    package init(level: Logger.Level = .info) {
        self.level = level
    }

    /// The bytes counted so far.
    package var count: Int { bytes.withLock { $0 } }

    /// A logger whose lines are counted here (and written nowhere).
    package func logger(label: String = "inkra.emulator") -> Logger {
        Logger(label: label) { label in Handler(counter: self, label: label, logLevel: self.level) }
    }

    fileprivate func add(_ count: Int) {
        bytes.withLock { $0 += count }
    }

    /// A request id's and a trace header's length on Lambda.
    static let requestID = "8476a536-e9f4-11e8-9739-2dfe598c3fcd"
    static let traceID = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
    /// `CivilTime.iso8601Milliseconds`' length: `2026-11-17T10:00:00.000Z`.
    static let timestamp = "2026-11-17T10:00:00.000Z"

    /// The length of one line in Lambda's JSON log format, as `bootstrap` writes it
    /// (``LambdaJSONLogLine``), its line feed included.
    static func lineLength(
        level: Logger.Level, message: String, label: String, metadata: Logger.Metadata
    ) -> Int {
        LambdaJSONLogLine.line(
            timestamp: timestamp, level: level, message: message, logger: label, requestID: requestID,
            traceID: traceID, metadata: metadata
        ).utf8.count + 1
    }

    private struct Handler: LogHandler {
        let counter: LogBytes
        let label: String
        var logLevel: Logger.Level
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            counter.add(
                LogBytes.lineLength(level: event.level, message: "\(event.message)", label: label, metadata: merged))
        }
    }
}
