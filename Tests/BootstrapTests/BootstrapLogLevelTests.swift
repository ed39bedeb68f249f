import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import Logging
import Testing

@testable import InkraRuntime

/// Lambda's advanced logging controls, as "Log-level filtering"
/// (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-log-level.html) and
/// "Configuring advanced logging controls for Lambda functions" define them: the application log
/// levels are TRACE, DEBUG, INFO, WARN, ERROR and FATAL; Lambda filters JSON lines only, by their
/// `level`, reading a level it does not know (`WARNING`, `CRITICAL`) as INFO; for a custom
/// runtime it sets `AWS_LAMBDA_LOG_FORMAT` and `AWS_LAMBDA_LOG_LEVEL` from the function's
/// `LoggingConfig`, and the runtime is to configure its loggers by them.
@Suite("Lambda's log levels: WARN and FATAL in the lines, AWS_LAMBDA_LOG_LEVEL and _FORMAT honoured")
struct BootstrapLogLevelTests {
    /// Lambda's six levels, least severe first.
    static let lambdaLevels = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"]

    @Test("Every swift-log level is written under one of Lambda's six names, in both formats")
    func levelNames() throws {
        let expected: [Logger.Level: String] = [
            .trace: "TRACE", .debug: "DEBUG", .info: "INFO", .notice: "INFO", .warning: "WARN", .error: "ERROR",
            .critical: "FATAL",
        ]
        for level in Logger.Level.allCases {
            let line = LambdaJSONLogLine.line(
                timestamp: "2026-11-28T18:00:00.000Z", level: level, message: "m", logger: "inkra.test",
                requestID: "r-1", traceID: nil, metadata: [:])
            #expect(try JSONParser.parse(line)["level"]?.string == expected[level], "\(line)")
            #expect(Self.lambdaLevels.contains(LambdaJSONLogLine.name(of: level)))
        }
    }

    @Test("AWS_LAMBDA_LOG_LEVEL takes Lambda's six names in any case, FATAL included")
    func lambdaNames() throws {
        let expected: [String: Logger.Level] = [
            "TRACE": .trace, "DEBUG": .debug, "INFO": .info, "WARN": .warning, "ERROR": .error, "FATAL": .critical,
        ]
        for (name, level) in expected {
            for spelling in [name, name.lowercased()] {
                let configuration = try Configuration(
                    environment: ["AWS_LAMBDA_LOG_FORMAT": "JSON", "AWS_LAMBDA_LOG_LEVEL": spelling])
                #expect(configuration.logLevel == level, "\(spelling)")
            }
        }
        // Not a name Lambda sets.
        #expect(throws: ConfigurationError.self) {
            try Configuration(environment: ["AWS_LAMBDA_LOG_FORMAT": "JSON", "AWS_LAMBDA_LOG_LEVEL": "warning"])
        }
    }

    @Test(
        "In the JSON format nothing below AWS_LAMBDA_LOG_LEVEL is written, whatever LOG_LEVEL says",
        arguments: [
            // (LOG_LEVEL, AWS_LAMBDA_LOG_LEVEL, the level in JSON, the level in Text)
            (nil, "WARN", Logger.Level.warning, Logger.Level.warning),
            ("debug", "WARN", .warning, .debug),
            ("error", "INFO", .error, .error),
            ("trace", "DEBUG", .debug, .trace),
            (nil, nil, .info, .info),
            ("debug", nil, .debug, .debug),
        ] as [(String?, String?, Logger.Level, Logger.Level)])
    func precedence(own: String?, lambdas: String?, json: Logger.Level, text: Logger.Level) throws {
        var environment: [String: String] = [:]
        environment["LOG_LEVEL"] = own
        environment["AWS_LAMBDA_LOG_LEVEL"] = lambdas
        environment["AWS_LAMBDA_LOG_FORMAT"] = "JSON"
        #expect(try Configuration(environment: environment).logLevel == json)
        // Lambda filters no Text line: AWS_LAMBDA_LOG_LEVEL stands in only for a LOG_LEVEL not set.
        environment["AWS_LAMBDA_LOG_FORMAT"] = "Text"
        #expect(try Configuration(environment: environment).logLevel == text)
    }

    /// The authorizer's settings of the token-recording tests, recording off, with `extra`.
    static func settings(_ extra: [String: String]) -> [String: String] {
        var settings = BootstrapTokenRecordingTests.settings()
        settings["INKRA_RECORD_EVENTS"] = nil
        settings["LOG_LEVEL"] = nil
        for (name, value) in extra { settings[name] = value }
        return settings
    }

    /// The built authorizer denying a user of the `blocked` group (a WARN line) under `settings`;
    /// every line it wrote to standard error, each parsed as JSON.
    static func blockedCall(_ settings: [String: String]) async throws -> [JSONValue] {
        let start = BootstrapTokenRecordingTests.start
        let blocked = try BootstrapTokenRecordingTests.token("lv-blocked", issued: start, groups: ["blocked"])
        let printed = try await BuiltBootstrap.session("authorizer", Self.settings(settings)) { invoke in
            let outcome = await invoke(BootstrapTokenRecordingTests.authorizerEvent(blocked, at: start + 5))
            guard case .response(let bytes) = outcome else {
                Issue.record("\(outcome)")
                return
            }
            #expect(String(decoding: bytes, as: UTF8.self).contains("\"Deny\""))
        }
        let lines = printed.standardError.split(separator: "\n").map(String.init)
        return try lines.map { line in
            let parsed = try JSONParser.parse(line)
            #expect(parsed.object != nil, "not a JSON line: \(line)")
            return parsed
        }
    }

    @Test("A function at WARN: its warning says WARN, the runtime's end FATAL, and no INFO line is written")
    func warnLevel() async throws {
        // LOG_LEVEL=debug cannot bring back what Lambda would drop.
        let lines = try await Self.blockedCall([
            "AWS_LAMBDA_LOG_FORMAT": "JSON", "AWS_LAMBDA_LOG_LEVEL": "WARN", "LOG_LEVEL": "debug",
        ])
        let levels = lines.compactMap { $0["level"]?.string }
        #expect(levels.count == lines.count, "a line without a level: \(lines)")
        #expect(levels.allSatisfy { ["WARN", "ERROR", "FATAL"].contains($0) }, "\(levels)")
        let denial = lines.first { $0["message"]?.string?.contains("blocked group") == true }
        #expect(denial?["level"]?.string == "WARN", "\(lines)")
        // The test's Runtime API goes away after the call: the runtime retries (WARN), then stops
        // at its critical level, which Lambda names FATAL.
        let stop = lines.first { $0["message"]?.string?.contains("stopping") == true }
        #expect(stop?["level"]?.string == "FATAL", "\(lines)")
    }

    @Test("A function at DEBUG writes its INFO start-up line; at FATAL it starts and writes only FATAL")
    func debugAndFatal() async throws {
        let debug = try await Self.blockedCall(["AWS_LAMBDA_LOG_FORMAT": "JSON", "AWS_LAMBDA_LOG_LEVEL": "DEBUG"])
        let serving = debug.first { $0["message"]?.string?.contains("serving") == true }
        #expect(serving?["level"]?.string == "INFO", "\(debug)")

        let fatal = try await Self.blockedCall(["AWS_LAMBDA_LOG_FORMAT": "JSON", "AWS_LAMBDA_LOG_LEVEL": "fatal"])
        #expect(fatal.allSatisfy { $0["level"]?.string == "FATAL" }, "\(fatal)")
        #expect(fatal.contains { $0["message"]?.string?.contains("stopping") == true }, "\(fatal)")
    }

    @Test("The Text format names the levels as Lambda does too")
    func textNames() async throws {
        let start = BootstrapTokenRecordingTests.start
        let blocked = try BootstrapTokenRecordingTests.token("lv-text", issued: start, groups: ["blocked"])
        let printed = try await BuiltBootstrap.session("authorizer", Self.settings(["AWS_LAMBDA_LOG_FORMAT": "Text"])) {
            invoke in
            _ = await invoke(BootstrapTokenRecordingTests.authorizerEvent(blocked, at: start + 5))
        }
        let lines = printed.standardError.split(separator: "\n")
        #expect(lines.contains { $0.contains("\tWARN\t") && $0.contains("blocked group") }, "\(lines)")
        #expect(lines.contains { $0.contains("\tFATAL\t") && $0.contains("stopping") }, "\(lines)")
        #expect(!lines.contains { $0.contains("\tWARNING\t") || $0.contains("\tCRITICAL\t") }, "\(lines)")
    }
}
