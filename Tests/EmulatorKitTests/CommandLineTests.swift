import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime
import Testing

@Suite("The inkra-emulator command line (spawned)")
struct CommandLineTests {
    @Test("token mints a JWT that invoke's authorizer accepts; a bad one exits 1 with Lambda's error object")
    func tokenAndInvoke() async throws {
        let minted = try await runEmulator([
            "token", "--sub", "cli-user", "--tier", "premium", "--email", "c@example.com",
        ])
        #expect(minted.status == 0, "\(minted.standardError)")
        let token = minted.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.split(separator: ".").count == 3)

        let event: JSONValue = [
            "type": "TOKEN", "authorizationToken": .string("Bearer \(token)"),
            "methodArn": "arn:aws:execute-api:us-east-1:123456789012:api/prod/POST/questions",
        ]
        let allowed = try await runEmulator(["invoke", "authorizer"], input: event.jsonString)
        #expect(allowed.status == 0, "\(allowed.standardError)")
        let policy = try JSONParser.parse(allowed.standardOutput)
        #expect(policy["principalId"] == "cli-user")
        #expect(policy["context"]?["tier"] == "premium")

        let refused = try await runEmulator(
            ["invoke", "authorizer", "--event", "-"],
            input: event.setting("Bearer x.y.z", at: ["authorizationToken"]).jsonString
        )
        #expect(refused.status == 1)
        #expect(
            try JSONParser.parse(refused.standardOutput) == [
                "errorMessage": "Unauthorized", "errorType": "Unauthorized",
            ])
    }

    @Test("invoke: usage errors exit 2 with a message on standard error")
    func usageErrors() async throws {
        let unreadable = try await runEmulator(["invoke", "checkUsage", "--event", "/nonexistent/event.json"])
        #expect(unreadable.status == 2)
        #expect(unreadable.standardError.contains("/nonexistent/event.json"))
        #expect(unreadable.standardOutput.isEmpty)

        let malformed = try await runEmulator(["invoke", "checkUsage"], input: "{ nope")
        #expect(malformed.status == 2)
        #expect(malformed.standardError.contains("not valid JSON"))

        let unknown = try await runEmulator(["invoke", "deleteEverything"], input: "{}")
        #expect(unknown.status == 2)
        #expect(
            unknown.standardError.contains(
                "The value 'deleteEverything' is invalid for '<function>'. Please provide one of 'authorizer', "
                    + "'checkUsage', 'generateQuestions', 'deleteAccount' or 'repairCharges'."),
            "\(unknown.standardError)")

        let badFlag = try await runEmulator(["invoke", "checkUsage", "--now", "yesterday"], input: "{}")
        #expect(badFlag.status == 2)
        #expect(
            badFlag.standardError.contains("The value 'yesterday' is invalid for '--now <yyyy-mm-ddThh:mm:ssZ>'"),
            "\(badFlag.standardError)")
    }

    @Test("invoke runs a proxy function alone and prints its response")
    func invokeProxy() async throws {
        let event = SampleEvents.event(.restUsage, token: nil, at: Timestamp.now)
            .setting(
                ["principalId": "direct", "userId": "direct", "tier": "free"], at: ["requestContext", "authorizer"])
        let result = try await runEmulator(["invoke", "checkUsage"], input: event.jsonString)
        #expect(result.status == 0, "\(result.standardError)")
        let response = try JSONParser.parse(result.standardOutput)
        #expect(response["statusCode"] == 200)
    }

    @Test("replay exits 0 on events/, and 1 on a mismatch")
    func replayExitStatus() async throws {
        let passing = try await runEmulator(["replay", "events"])
        #expect(passing.status == 0, "\(passing.standardOutput)\(passing.standardError)")
        #expect(passing.standardOutput.contains(" 0 failed"))

        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let folder = scratch.appendingPathComponent("checkUsage")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(SampleEvents.event(.restUsage, token: nil, at: Timestamp.now).jsonString.utf8)
            .write(to: folder.appendingPathComponent("e.json"))
        try Data(#"{"statusCode":200}"#.utf8).write(to: folder.appendingPathComponent("e.expected.json"))
        let failing = try await runEmulator(["replay", folder.path])
        #expect(failing.status == 1)
        #expect(failing.standardOutput.contains("statusCode: expected 200, got 401"))
    }
}
