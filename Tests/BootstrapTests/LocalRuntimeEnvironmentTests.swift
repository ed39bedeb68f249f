import Foundation
import HTTPText
import InkraTime
import Testing

@testable import EmulatorKit
@testable import InkraRuntime

/// What `run-runtime` passes a runtime: inside Lambda (as the runtime believes it is) an unknown
/// `INKRA_*` setting stops start-up, so the shell's `INKRA_*` variables stay behind but for the
/// model endpoint's (docs/emulator.md, `run-runtime`).
@Suite("run-runtime's environment for a runtime")
struct LocalRuntimeEnvironmentTests {
    static func environment(shell: [String: String], endpoint: HTTPURL? = nil) throws -> [String: String] {
        var options = EmulatorOptions(clock: { Timestamp(timeIntervalSince1970: 1_763_000_000) })
        options.tableName = "inkra-usage-local"
        return try LocalRuntime.environment(
            function: .generateQuestions, address: "127.0.0.1:9001", options: options, dynamoDBEndpoint: endpoint,
            logLevel: "warning", developmentJWKS: nil, shell: shell)
    }

    @Test("A test suite's INKRA_TEST_* stays behind, and the runtime reads what it gets as inside Lambda")
    func testVariablesStayBehind() throws {
        let shell = ["INKRA_TEST_DYNAMODB_ENDPOINT": "http://127.0.0.1:5000", "PATH": "/usr/bin:/bin"]
        let environment = try Self.environment(shell: shell)
        #expect(environment["INKRA_TEST_DYNAMODB_ENDPOINT"] == nil)
        #expect(environment["PATH"] == "/usr/bin:/bin", "the shell's other variables pass")
        let configuration = try Configuration(environment: environment)
        #expect(configuration.insideLambda)
        #expect(configuration.requestClock)
        #expect(configuration.store == .memory)
        #expect(configuration.tableName == "inkra-usage-local")
    }

    @Test("Given to the runtime as it is, the same shell stops start-up naming the test variable")
    func unfilteredShellStops() throws {
        var environment = try Self.environment(shell: [:])
        environment["INKRA_TEST_DYNAMODB_ENDPOINT"] = "http://127.0.0.1:5000"
        let error = #expect(throws: ConfigurationError.self) { try Configuration(environment: environment) }
        #expect(error?.setting == "INKRA_TEST_DYNAMODB_ENDPOINT")
    }

    @Test("The model's INKRA_LLM_* and INKRA_RECORD_EVENTS pass; the shell's other INKRA_* give way to run-runtime's")
    func modelSettingsPass() throws {
        let shell = [
            "INKRA_LLM_BASE_URL": "http://127.0.0.1:8080/v1", "INKRA_LLM_MODEL": "local-model",
            "INKRA_STORE": "dynamodb", "INKRA_TABLE_NAME": "someone-elses-table", "INKRA_RECORD_EVENTS": "1",
            "INKRA_LIMITS": "{}",
        ]
        let environment = try Self.environment(shell: shell)
        #expect(environment["INKRA_LLM_BASE_URL"] == "http://127.0.0.1:8080/v1")
        #expect(environment["INKRA_LLM_MODEL"] == "local-model")
        #expect(environment["INKRA_STORE"] == "memory")
        #expect(environment["INKRA_TABLE_NAME"] == "inkra-usage-local")
        #expect(environment["INKRA_RECORD_EVENTS"] == "1")  // scripts/ci-record.sh records this way
        #expect(environment["INKRA_LIMITS"] == nil)
        #expect(throws: Never.self) { try Configuration(environment: environment) }
    }
}
