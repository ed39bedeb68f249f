import Foundation
import InkraTestSupport
import Testing

/// `inkra-emulator exec`, as an app's test suite runs it: the stack on free ports around one command,
/// its addresses in the command's environment, the command's status as exec's own.
@Suite("exec: the stack around one command (spawned)")
struct ExecCommandTests {
    /// Whether python3 with boto3 is here, for the app's script.
    static let hasBoto3 = Task { await Python.imports("boto3") }

    /// An app's test: signs up on the local pool, signs in, asks for questions, reads its usage, and
    /// ends with the status the environment names.
    static let appTest = """
        import json, os, sys, urllib.request
        import boto3
        idp = boto3.client("cognito-idp")
        pool, client = os.environ["INKRA_USER_POOL_ID"], os.environ["INKRA_CLI_CLIENT_ID"]
        idp.sign_up(ClientId=client, Username="ada@example.com", Password="Correct-horse-9",
                    UserAttributes=[{"Name": "email", "Value": "ada@example.com"}])
        idp.admin_set_user_password(UserPoolId=pool, Username="ada@example.com", Password="Correct-horse-9",
                                    Permanent=True)
        token = idp.initiate_auth(ClientId=client, AuthFlow="USER_PASSWORD_AUTH",
            AuthParameters={"USERNAME": "ada@example.com", "PASSWORD": "Correct-horse-9"}
        )["AuthenticationResult"]["IdToken"]
        def call(method, path, body=None):
            request = urllib.request.Request(os.environ["INKRA_API_URL"] + path, method=method,
                data=None if body is None else json.dumps(body).encode(),
                headers={"Authorization": "Bearer " + token, "Idempotency-Key": "call-1"})
            with urllib.request.urlopen(request) as answer:
                return answer.status, json.load(answer)
        status, body = call("POST", "/questions", {"topic": "my first job"})
        print("questions", status, len(body["questions"]))
        status, body = call("GET", "/usage")
        print("usage", status, body["used"])
        sys.exit(int(os.environ["APP_EXIT"]))
        """

    @Test(
        "An app's script signs up, signs in and calls the API; exec exits with its status; --state keeps the unit",
        .enabled("python3 with boto3 is needed (pip install boto3)") { await hasBoto3.value })
    func appScript() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("app_test.py")
        try Data(Self.appTest.utf8).write(to: script)
        let state = folder.appendingPathComponent("state.json")
        let result = try await ChildProcess.run(
            Repository.emulatorBinary,
            ["exec", "--state", state.path, "--", "/usr/bin/env", "APP_EXIT=3", "python3", script.path],
            directory: Repository.root)
        #expect(result.status == 3, "\(result.standardError)")
        #expect(result.standardOutput == "questions 200 5\nusage 200 1\n")
        // The banner and the access log go to standard error, the command's output is its own.
        // The command is named by its program alone: its arguments may hold a token or a password.
        #expect(result.standardError.contains("Running: /usr/bin/env (and 3 arguments)"))
        #expect(!result.standardError.contains("APP_EXIT"))
        #expect(!result.standardError.contains("Press Ctrl-C"))
        #expect(result.standardError.contains(#""POST /questions HTTP/1.1" 200"#), "\(result.standardError)")
        // The stack stopped after the command and wrote --state: the one answered call is charged once.
        let saved = try String(contentsOf: state, encoding: .utf8)
        #expect(saved.contains(#""interviewCount":{"N":"1"}"#), "\(saved)")
    }

    @Test("Every address is in the command's environment, on ports that answer; --stage is in the API's URL")
    func environment() async throws {
        let result = try await ChildProcess.run(
            Repository.emulatorBinary,
            [
                "exec", "--stage", "prod", "--no-access-log", "--", "sh", "-c",
                // The test process's own INKRA_TEST_* settings are inherited, as any variable is.
                #"env | grep -E '^(INKRA_|AWS_REGION=|AWS_ENDPOINT_URL_)' | grep -v '^INKRA_TEST_' | sort; "#
                    + #"curl -s -o /dev/null -w '%{http_code}\n' "$INKRA_API_URL/usage""#,
            ],
            directory: Repository.root)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        let names = lines.filter { $0.contains("=") }.compactMap {
            $0.split(separator: "=", maxSplits: 1).first.map(String.init)
        }
        #expect(
            names == [
                "AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_REGION",
                "INKRA_API_URL", "INKRA_APP_CLIENT_ID", "INKRA_CLI_CLIENT_ID", "INKRA_COGNITO_URL",
                "INKRA_CONSOLE_URL", "INKRA_DYNAMODB_URL", "INKRA_LAMBDA_URL", "INKRA_TABLE_NAME",
                "INKRA_USER_POOL_ID",
            ], "\(result.standardOutput)")
        #expect(lines.contains { $0.hasPrefix("INKRA_API_URL=http://127.0.0.1:") && $0.hasSuffix("/prod") })
        // No token: the local API Gateway's 401, so the API answered.
        #expect(lines.last == "401")
    }

    @Test("A command killed by a signal, one not found, and none given: 128 + N, 127, and a usage error")
    func statuses() async throws {
        let killed = try await ChildProcess.run(
            Repository.emulatorBinary, ["exec", "--no-cognito", "--no-console", "--", "sh", "-c", "kill -9 $$"])
        #expect(killed.status == 137, "\(killed.standardError)")
        let missing = try await ChildProcess.run(
            Repository.emulatorBinary, ["exec", "--no-cognito", "--no-console", "--", "no-such-command-here"])
        #expect(missing.status == 127)
        #expect(missing.standardError.contains("no-such-command-here"))
        let none = try await ChildProcess.run(Repository.emulatorBinary, ["exec"])
        #expect(none.status == 2)
        #expect(none.standardError.contains("name the command to run after --"))
    }
}
