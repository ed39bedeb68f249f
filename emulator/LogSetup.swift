import EmulatorKit
import Foundation
import Logging

/// Sends the functions' logs to standard error at the chosen level.
enum LogSetup {
    static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }

    /// As ``bootstrap(level:)``, and also keeps each invocation's log lines (info and above) for
    /// the Invoke API's log tail.
    static func bootstrapCapturing(level: Logger.Level, now: @escaping @Sendable () -> Date) {
        LoggingSystem.bootstrap { label in
            var stream = StreamLogHandler.standardError(label: label)
            stream.logLevel = level
            return InvocationLogHandler(upstream: stream, now: now)
        }
    }
}
