import Logging

/// Sends the functions' logs to standard error at the chosen level.
enum LogSetup {
    static func bootstrap(level: String) {
        let parsed = Logger.Level(rawValue: level.lowercased()) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = parsed
            return handler
        }
    }
}
