import EmulatorKit
import EmulatorServer
import Foundation
import InkraJSON
import InkraTestSupport
import InkraTime
import Testing

@Suite("The bootstrap executable")
struct BootstrapTests {
    @Test("A missing setting is posted to /runtime/init/error, naming it, and bootstrap exits non-zero")
    func missingSetting() async throws {
        let server = try await RuntimeAPIServer(functionName: "authorizer", clock: { Timestamp.now })
        var environment = ProcessInfo.processInfo.environment
        environment["AWS_LAMBDA_RUNTIME_API"] = server.address
        environment["_HANDLER"] = "authorizer"
        environment["COGNITO_USER_POOL_ID"] = nil
        environment["INKRA_JWKS_FILE"] = nil
        let status = try await ChildProcess.run(ChildProcess.built("bootstrap"), [], environment: environment).status
        #expect(status != 0)
        guard case .initializationFailed(_, let body)? = await server.queue.initializationFailure else {
            Issue.record("bootstrap posted no init error")
            return
        }
        #expect(try JSONParser.parse(body)["errorMessage"]?.string?.contains("COGNITO_USER_POOL_ID") == true)
        await server.shutdown()
    }

    @Test("A malformed setting is named too")
    func malformedSetting() async throws {
        for (name, value) in [
            ("INKRA_STORE", "postgres"), ("_HANDLER", "deleteAll"), ("INKRA_CLOCK_SKEW", "-5"),
            ("INKRA_CLOCK", "request"),
            ("INKRA_DELETE_COGNITO_USER", "yes"),
        ] {
            let server = try await RuntimeAPIServer(clock: { Timestamp.now })
            var environment = ProcessInfo.processInfo.environment
            environment["AWS_LAMBDA_RUNTIME_API"] = server.address
            environment["_HANDLER"] = "checkUsage"
            environment[name] = value
            let status = try await ChildProcess.run(ChildProcess.built("bootstrap"), [], environment: environment)
                .status
            #expect(status != 0)
            guard case .initializationFailed(_, let body)? = await server.queue.initializationFailure else {
                Issue.record("bootstrap posted no init error for \(name)")
                await server.shutdown()
                continue
            }
            #expect(try JSONParser.parse(body)["errorMessage"]?.string?.contains(name) == true)
            await server.shutdown()
        }
    }

    @Test(
        "run-runtime drives the real bootstrap over events/ with the results of replay",
        arguments: ["authorizer", "generateQuestions"])
    func runRuntime(function: String) async throws {
        let result = try await ChildProcess.run(
            ChildProcess.built("inkra-emulator"),
            [
                "run-runtime", ChildProcess.built("bootstrap").path, "--function", function, "--timeout", "60",
                "events",
            ]
        )
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains(" 0 failed"))
        #expect(!result.standardOutput.contains("✗"))
    }
}
