import Foundation
import HTTPText
import InkraJSON
import InkraTestSupport
import NIOCore
import NIOHTTP1
import OutboundHTTP
import Testing

/// The `inkra-emulator serve` binary's user pool under `kill -9`: what the Cognito endpoint
/// answered is on disk (the state's journal) before the answer goes out.
@Suite("serve: the user pool survives kill -9")
struct ServeUserPoolCrashTests {
    /// `serve` on free ports with its user pool and a state file; its Cognito endpoint.
    static func start(state: URL) async throws -> (RunningChild, String) {
        let server = try RunningChild(
            ChildProcess.built("inkra-emulator"),
            [
                "serve", "--port", "0", "--lambda-port", "0", "--runtime-api-port", "0", "--dynamodb-port", "0",
                "--cognito-port", "0", "--no-access-log", "--no-console", "--state", state.path,
            ], includingStandardError: true)
        guard let banner = await server.line(containing: "(user pool"),
            let cognito = banner.split(separator: " ").first(where: { $0.hasPrefix("http://") }),
            await server.line(containing: "Press Ctrl-C") != nil
        else {
            _ = await server.stop(with: SIGKILL)
            throw FixtureError("serve did not start: \(server.lines)")
        }
        return (server, String(cognito))
    }

    /// Calls a Cognito Identity Provider operation as the AWS SDKs do; the status and the JSON body.
    static func call(
        _ client: OutboundHTTPClient, _ endpoint: String, _ operation: String, _ body: JSONValue
    ) async throws -> (Int, JSONValue) {
        guard let url = HTTPURL(string: endpoint + "/") else { throw FixtureError("not a URL: \(endpoint)/") }
        let request = OutboundRequest(
            method: .POST, url: url,
            headers: [
                ("X-Amz-Target", "AWSCognitoIdentityProviderService.\(operation)"),
                ("Content-Type", "application/x-amz-json-1.1"),
            ],
            body: body.jsonBytes)
        let response = try await client.execute(request, timeout: Patience.hang, maximumResponseBytes: 1 << 20)
        return (response.status, try JSONParser.parse(response.body))
    }

    @Test(
        "Signed up (confirmed or not), serve killed with SIGKILL, restarted on the same --state: the users are there",
        .timeLimit(.minutes(10)))
    func signUpThenKill() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "inkra-serve-pool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state.json")
        let client = OutboundHTTPClient()
        do {
            try await Self.signUpKillAndRestart(state: state, client: client)
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
    }

    static func signUpKillAndRestart(state: URL, client: OutboundHTTPClient) async throws {
        let clientID = "inkra-local-cli-client"
        let password = "Correct-Horse-42"

        let (first, cognito) = try await Self.start(state: state)
        var killed = false
        do {
            let (pending, _) = try await Self.call(
                client, cognito, "SignUp",
                ["ClientId": .string(clientID), "Username": "pending@example.com", "Password": .string(password)])
            #expect(pending == 200)
            let (signedUp, answer) = try await Self.call(
                client, cognito, "SignUp",
                ["ClientId": .string(clientID), "Username": "confirmed@example.com", "Password": .string(password)])
            #expect(signedUp == 200)
            let sub = try #require(answer["UserSub"]?.string)
            let line = try #require(await first.line(containing: "code for user \(sub)"))
            let code = try #require(line.split(separator: " ").last.map(String.init))
            let (confirmed, _) = try await Self.call(
                client, cognito, "ConfirmSignUp",
                ["ClientId": .string(clientID), "Username": "confirmed@example.com", "ConfirmationCode": .string(code)])
            #expect(confirmed == 200)
            // No clean exit: nothing is written on the way out.
            #expect(await first.stop(with: SIGKILL) == -SIGKILL)
            killed = true
        } catch {
            if !killed { _ = await first.stop(with: SIGKILL) }
            throw error
        }

        let (second, restarted) = try await Self.start(state: state)
        do {
            let (status, user) = try await Self.call(
                client, restarted, "AdminGetUser",
                ["UserPoolId": "us-east-1_InkraLocal", "Username": "pending@example.com"])
            #expect(status == 200, "\(user.jsonString)")
            #expect(user["UserStatus"] == "UNCONFIRMED", "\(user.jsonString)")
            let (signedIn, tokens) = try await Self.call(
                client, restarted, "InitiateAuth",
                [
                    "ClientId": .string(clientID), "AuthFlow": "USER_PASSWORD_AUTH",
                    "AuthParameters": ["USERNAME": "confirmed@example.com", "PASSWORD": .string(password)],
                ])
            #expect(signedIn == 200, "\(tokens.jsonString)")
            #expect(tokens["AuthenticationResult"]?["IdToken"]?.string != nil, "\(tokens.jsonString)")
        } catch {
            _ = await second.stop(with: SIGKILL)
            throw error
        }
        #expect(await second.stop() == 0)
    }
}
