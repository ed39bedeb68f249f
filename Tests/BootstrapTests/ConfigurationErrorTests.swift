import Foundation
import HTTPText
import InkraLLM
import Logging
import Testing

@testable import InkraRuntime

/// Every malformed setting stops start-up with an error that names that very variable and says
/// what it accepts (docs/configuration.md), so an operator fixes the right line of the function's
/// configuration.
@Suite("Configuration: each error names its own variable and what it accepts")
struct ConfigurationErrorTests {
    /// A malformed value, the variable the error must name, and what the message must say.
    struct Case: Sendable, CustomTestStringConvertible {
        var variable: String
        var value: String
        var accepts: [String]
        var testDescription: String { "\(variable)=\(value)" }

        init(_ variable: String, _ value: String, accepts: [String]) {
            self.variable = variable
            self.value = value
            self.accepts = accepts
        }
    }

    static let malformed: [Case] = [
        Case("INKRA_TABLE_NAME", "ab", accepts: ["3–255 characters of letters, digits, '_', '-' and '.'"]),
        Case("INKRA_STORE", "sqlite", accepts: ["memory or dynamodb"]),
        Case("INKRA_GATEWAY_TIMEOUT", "1", accepts: ["seconds from 2 to 900"]),
        Case("AWS_ENDPOINT_URL_DYNAMODB", "ftp://db.local", accepts: ["http or https URL"]),
        Case("AWS_ENDPOINT_URL", "not a url", accepts: ["http or https URL"]),
        Case("COGNITO_USER_POOL_ID", "nounderscore", accepts: ["us-east-1_AbCdEf123"]),
        Case("INKRA_TOKEN_USE", "both", accepts: ["access, id or any"]),
        Case("INKRA_COGNITO_ISSUER", "NEW", accepts: ["ORIGINAL or UPDATED"]),
        Case("INKRA_CLOCK_SKEW", "-1", accepts: ["seconds from 0 to 3600"]),
        Case("INKRA_LIMITS_PARAMETER", "inkra/limits", accepts: ["starts with '/'"]),
        Case("INKRA_LIMITS_MAX_AGE", "0", accepts: ["seconds from 1 to 86400"]),
        Case("INKRA_CLOCK", "wall", accepts: ["system or request-time"]),
        Case("INKRA_DELETE_COGNITO_USER", "yes", accepts: ["true or false"]),
        Case("INKRA_UPGRADE_URL", "premium", accepts: ["absolute URL"]),
        Case("INKRA_RECORD_EVENTS", "yes", accepts: ["1 or 0 (true or false)"]),
        Case("AWS_LAMBDA_LOG_FORMAT", "xml", accepts: ["Text or JSON"]),
        Case(
            "LOG_LEVEL", "verbose",
            accepts: ["trace, debug, info, notice, warning (or warn), error, critical (any case)"]),
        Case(
            "AWS_LAMBDA_LOG_LEVEL", "verbose",
            accepts: ["TRACE, DEBUG, INFO, WARN, ERROR or FATAL (any case)"]),
        Case("INKRA_LLM_BASE_URL", "ftp://models.example", accepts: ["http or https URL"]),
        Case("INKRA_LLM_TIMEOUT", "0", accepts: ["more than 0 and at most 120"]),
        Case("INKRA_LLM_TIMEOUT", "121", accepts: ["more than 0 and at most 120"]),
    ]

    @Test("A malformed setting stops start-up naming it, what it accepts and what it got", arguments: malformed)
    func malformedSetting(_ bad: Case) {
        let error = #expect(throws: ConfigurationError.self) {
            try Configuration(environment: [bad.variable: bad.value])
        }
        #expect(error?.setting == bad.variable, "\(String(describing: error))")
        #expect(error?.code == .invalid)
        for accepted in bad.accepts {
            #expect(error?.reason.contains(accepted) == true, "\(String(describing: error))")
        }
        #expect(error?.reason.contains("\"\(bad.value)\"") == true, "\(String(describing: error))")
    }

    /// The names `LOG_LEVEL`'s error lists: "must be one of a, b, c (or d), e (any case), …".
    static func namesInLogLevelError() throws -> Set<String> {
        let error = #expect(throws: ConfigurationError.self) { try Configuration(environment: ["LOG_LEVEL": "x"]) }
        let reason = try #require(error?.reason)
        let list = try #require(reason.firstRange(of: "must be one of ").map { reason[$0.upperBound...] })
        let upToCase = try #require(list.firstRange(of: " (any case)").map { list[..<$0.lowerBound] })
        return Set(
            upToCase.replacing("(or ", with: ", ").replacing(")", with: "").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces) })
    }

    @Test("LOG_LEVEL's error names exactly the values LOG_LEVEL accepts")
    func logLevelNamesWhatItAccepts() throws {
        let named = try Self.namesInLogLevelError()
        #expect(named == Set(Configuration.logLevels.map(\.name)))
        for name in named {
            let level = try Configuration(environment: ["LOG_LEVEL": name.uppercased()]).logLevel
            #expect(level.rawValue == (name == "warn" ? "warning" : name))
        }
        #expect(throws: ConfigurationError.self) { try Configuration(environment: ["LOG_LEVEL": "fatal"]) }
        #expect(try Configuration(environment: [:]).logLevel == .info)
        #expect(try Configuration(environment: ["AWS_LAMBDA_LOG_LEVEL": "debug"]).logLevel == .debug)
        #expect(
            try Configuration(environment: ["LOG_LEVEL": "error", "AWS_LAMBDA_LOG_LEVEL": "debug"]).logLevel == .error)
    }

    static let remote = ["INKRA_LLM_BASE_URL": "http://models.example/v1", "INKRA_LLM_MODEL": "m"]

    @Test("A base URL without INKRA_LLM_MODEL names INKRA_LLM_MODEL, not the base URL")
    func modelRequired() throws {
        let configuration = try Configuration(environment: ["INKRA_LLM_BASE_URL": "https://models.example/v1"])
        let error = #expect(throws: ConfigurationError.self) { try configuration.model() }
        #expect(error?.setting == "INKRA_LLM_MODEL")
        #expect(error?.reason == "is required with INKRA_LLM_BASE_URL")
        #expect(error?.code == .missing)
    }

    @Test("A key bound for plain http to another machine names where the key came from")
    func keyInTheClear() throws {
        var environment = Self.remote
        environment["INKRA_LLM_API_KEY"] = "sk-test"
        let configured = try Configuration(environment: environment)
        let fromVariable = #expect(throws: ConfigurationError.self) { try configured.model() }
        #expect(fromVariable?.setting == "INKRA_LLM_API_KEY")
        #expect(fromVariable?.reason.contains("INKRA_LLM_BASE_URL must be https") == true)
        let fromSecret = #expect(throws: ConfigurationError.self) {
            try Configuration(environment: Self.remote).model(secretKey: "sk-from-the-secret")
        }
        #expect(fromSecret?.setting == "INKRA_LLM_API_KEY_SECRET_ARN")
        #expect(fromSecret.map { !"\($0)".contains("sk-from-the-secret") } == true, "the key is never in a message")
    }

    @Test("The model's settings travel as a value: the secret's key replaces the variable's, nothing is written back")
    func modelSettings() throws {
        #expect(try Configuration(environment: [:]).model() == nil, "no base URL: the built-in generator")
        let environment = [
            "INKRA_LLM_BASE_URL": "http://127.0.0.1:9/v1", "INKRA_LLM_MODEL": "m", "INKRA_LLM_TIMEOUT": "4",
            "INKRA_LLM_API_KEY": "sk-variable", "INKRA_LLM_API_KEY_SECRET_ARN": "arn:aws:secretsmanager:x",
        ]
        let configuration = try Configuration(environment: environment)
        #expect(configuration.modelAPIKeySecretARN == "arn:aws:secretsmanager:x")
        let plain = try #require(try configuration.model())
        #expect(plain.baseURL.absoluteString == "http://127.0.0.1:9/v1")
        #expect(plain.model == "m")
        #expect(plain.timeout == 4)
        #expect(plain.apiKey == "sk-variable")
        #expect(try configuration.model(secretKey: "sk-secret")?.apiKey == "sk-secret")
        #expect(try configuration.model()?.apiKey == "sk-variable", "the secret is not kept anywhere")
    }
}
