import Foundation
import InkraTestSupport
import Testing

/// A runtime behind `serve --bootstrap` that fails to start, held to what Lambda answers: the
/// invocations fail with the runtime's error (the Invoke API's 200 with `X-Amz-Function-Error:
/// Unhandled`, API Gateway's 502), the log says why, and the in-process function never answers
/// in its place. The runtimes are a few lines of Python speaking the Runtime API, not this
/// package's `bootstrap`.
/// - https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html (initialization error)
/// - https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html (X-Amz-Function-Error)
@Suite("serve --bootstrap: a runtime that fails to start fails its invocations (spawned)")
struct RuntimeInitFailureTests {
    static let initError = """
        #!/usr/bin/env python3
        import json, os, urllib.request
        api = os.environ["AWS_LAMBDA_RUNTIME_API"]
        body = json.dumps({"errorType": "Runtime.ConfigError", "errorMessage": "INKRA_X is not set"}).encode()
        urllib.request.urlopen(urllib.request.Request(
            f"http://{api}/2018-06-01/runtime/init/error", data=body, method="POST",
            headers={"Lambda-Runtime-Function-Error-Type": "Runtime.ConfigError"}))
        os._exit(1)
        """

    static let exitsAtOnce = """
        #!/usr/bin/env python3
        import sys
        sys.exit(3)
        """

    /// What the client saw: `POST /questions`, an Invoke API call, and `GET /usage`.
    static let client = #"""
        curl -s -o /dev/null -w 'questions %{http_code}\n' -X POST "$INKRA_API_URL/questions" \
            -H "Authorization: Bearer $TOKEN" -d '{"topic":"my first job"}'
        curl -s -D "$WORK/invoke.headers" -o "$WORK/invoke.body" -w 'invoke %{http_code}\n' -X POST \
            "$INKRA_LAMBDA_URL/2015-03-31/functions/generateQuestions/invocations" -d '{}'
        grep -i '^x-amz-function-error:' "$WORK/invoke.headers" | tr -d '\r'
        cat "$WORK/invoke.body"; echo
        curl -s -H "Authorization: Bearer $TOKEN" "$INKRA_API_URL/usage"; echo
        """#

    /// Runs `exec --bootstrap RUNTIME` around the client.
    static func serve(runtime: String) async throws -> ProcessResult {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("runtime.py")
        try Data(runtime.utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let token = try await runEmulator(["token", "--sub", "ada"]).standardOutput
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return try await runEmulator([
            "exec", "--no-cognito", "--no-console", "--no-access-log", "--bootstrap", script.path,
            "--runtime-function", "generateQuestions", "--", "/usr/bin/env", "TOKEN=\(token)", "WORK=\(folder.path)",
            "sh", "-c", client,
        ])
    }

    @Test("An init error: 502 through API Gateway, the runtime's error through the Invoke API, nothing charged")
    func initError() async throws {
        let result = try await Self.serve(runtime: Self.initError)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "questions 502", "\(result.standardOutput)")
        #expect(lines.dropFirst().first == "invoke 200")
        #expect(lines.dropFirst(2).first?.lowercased() == "x-amz-function-error: unhandled")
        #expect(lines.dropFirst(3).first == #"{"errorMessage":"INKRA_X is not set","errorType":"Runtime.ConfigError"}"#)
        // The in-process function did not answer in the runtime's place: nothing was charged.
        #expect(lines.dropFirst(4).first?.contains(#""used":0"#) == true, "\(result.standardOutput)")
        #expect(
            result.standardError.contains(
                "the runtime failed to start (Runtime.ConfigError: INKRA_X is not set); "
                    + "invocations of generateQuestions fail with it"), "\(result.standardError)")
    }

    @Test("A runtime that exits before its first poll: Runtime.ExitError, naming its status; nothing charged")
    func exitsBeforePolling() async throws {
        let result = try await Self.serve(runtime: Self.exitsAtOnce)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "questions 502", "\(result.standardOutput)")
        #expect(lines.dropFirst().first == "invoke 200")
        #expect(lines.dropFirst(2).first?.lowercased() == "x-amz-function-error: unhandled")
        #expect(lines.dropFirst(3).first?.contains(#""errorType":"Runtime.ExitError""#) == true)
        #expect(lines.dropFirst(3).first?.contains("status 3") == true)
        #expect(lines.dropFirst(4).first?.contains(#""used":0"#) == true, "\(result.standardOutput)")
        #expect(result.standardError.contains("the runtime exited with status 3"), "\(result.standardError)")
    }
}
