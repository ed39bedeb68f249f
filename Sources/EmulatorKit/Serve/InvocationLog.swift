import Foundation
import InkraTime
import Logging
import Synchronization

/// The log of one invocation, kept so the Invoke API can return its tail (`X-Amz-Log-Type: Tail`)
/// as Lambda does. Lines reach it through ``InvocationLogHandler`` while it is the task's current log.
package final class InvocationLog: Sendable {
    /// The log of the invocation under way in this task, if one is being kept.
    @TaskLocal package static var current: InvocationLog?

    /// The invocation's request id, which each line carries.
    package let requestID: String
    private let text = Mutex("")

    /// A log for one invocation.
    package init(requestID: String) {
        self.requestID = requestID
    }

    /// Adds a line.
    package func append(_ line: String) {
        text.withLock { $0 += line.hasSuffix("\n") ? line : line + "\n" }
    }

    /// Everything logged so far.
    package var contents: String { text.withLock { $0 } }

    /// The last `limit` bytes, base64-encoded, as Lambda's `X-Amz-Log-Result` carries them.
    package func tail(limit: Int = 4096) -> String {
        let bytes = Array(contents.utf8)
        return Data(bytes.suffix(limit)).base64EncodedString()
    }
}

/// A log handler that passes lines on at its own level and also writes every line at
/// `captureLevel` or above, in Lambda's text format (`time<TAB>request-id<TAB>LEVEL<TAB>message`),
/// to the current ``InvocationLog`` (when there is none, outside `serve`, it only passes lines on).
///
/// The logger's metadata is kept here and handed on with each line that is written, not set on
/// the upstream handler: a server sets a request id on its logger for every request, and a
/// handler such as `StreamLogHandler` formats its whole metadata each time it is set, for lines
/// that mostly are never written.
package struct InvocationLogHandler: LogHandler {
    private var upstream: any LogHandler
    private let captureLevel: Logger.Level
    private let now: @Sendable () -> Timestamp
    /// The logger's metadata, handed on with each line rather than set on the upstream handler.
    package var metadata: Logger.Metadata = [:]

    /// A handler in front of another.
    /// - Parameters:
    ///   - upstream: where lines at its own level go as well (standard error, usually).
    ///   - captureLevel: the lowest level an invocation's log keeps.
    ///   - now: the clock the captured lines are stamped by.
    package init(upstream: any LogHandler, captureLevel: Logger.Level = .info, now: @escaping @Sendable () -> Timestamp)
    {
        self.upstream = upstream
        self.captureLevel = captureLevel
        self.now = now
    }

    package var logLevel: Logger.Level {
        get { min(upstream.logLevel, captureLevel) }
        set { upstream.logLevel = newValue }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let passesOn = event.level >= upstream.logLevel
        let captured = event.level >= captureLevel ? InvocationLog.current : nil
        guard passesOn || captured != nil else { return }
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        if passesOn {
            var event = event
            event.metadata = merged.isEmpty ? nil : merged
            upstream.log(event: event)
        }
        guard let log = captured else { return }
        let details = merged.sorted { $0.key < $1.key }.map { " \($0)=\($1)" }.joined()
        log.append(
            "\(CivilTime.iso8601(now()))\t\(log.requestID)\t\(event.level.rawValue.uppercased())\t\(event.message)\(details)"
        )
    }
}
