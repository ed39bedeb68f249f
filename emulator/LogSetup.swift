import EmulatorKit
import Foundation
import InkraTime
import Logging

/// Sends the functions' logs to standard error at the chosen level.
enum LogSetup {
    /// Lines at `level` or above go to standard error. The logger's metadata (each invocation's
    /// request id) is held by ``InvocationLogHandler`` and formatted only for a line that is
    /// written; `serve` also keeps each invocation's lines (info and above) for the Invoke API's
    /// log tail, stamped by `now`.
    static func bootstrap(level: Logger.Level, now: @escaping @Sendable () -> Timestamp = { Timestamp.now }) {
        LoggingSystem.bootstrap { label in
            var stream = StreamLogHandler.standardError(label: label)
            stream.logLevel = level
            return InvocationLogHandler(upstream: stream, now: now)
        }
    }
}
