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

    /// Fails its first two starts (`/runtime/init/error`), counting them in `starts` beside it and
    /// leaving `failed-N` once Lambda's API has taken the error; the third serves.
    static let failsTwice = """
        #!/usr/bin/env python3
        import json, os, urllib.request
        api = os.environ["AWS_LAMBDA_RUNTIME_API"]
        here = os.path.dirname(os.path.abspath(__file__))
        starts = os.path.join(here, "starts")
        count = int(open(starts).read()) + 1 if os.path.exists(starts) else 1
        open(starts, "w").write(str(count))
        if count <= 2:
            body = json.dumps({"errorType": "Runtime.ConfigError", "errorMessage": f"start {count} failed"}).encode()
            urllib.request.urlopen(urllib.request.Request(
                f"http://{api}/2018-06-01/runtime/init/error", data=body, method="POST",
                headers={"Lambda-Runtime-Function-Error-Type": "Runtime.ConfigError"}))
            open(os.path.join(here, f"failed-{count}"), "w").close()
            os._exit(1)
        while True:
            with urllib.request.urlopen(f"http://{api}/2018-06-01/runtime/invocation/next") as answer:
                request_id = answer.headers["Lambda-Runtime-Aws-Request-Id"]
            result = {"statusCode": 200, "body": json.dumps({"answeredBy": f"start {count}"})}
            urllib.request.urlopen(urllib.request.Request(
                f"http://{api}/2018-06-01/runtime/invocation/{request_id}/response",
                data=json.dumps(result).encode(), method="POST"))
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

    /// Two requests once the runtime's first start has failed: each finds the runtime failed and
    /// starts it again; the first of those starts fails too, the second serves.
    static let retryingClient = #"""
        while [ ! -f "$WORK/failed-1" ]; do sleep 0.1; done
        curl -s -o /dev/null -w 'first %{http_code}\n' -X POST "$INKRA_API_URL/questions" \
            -H "Authorization: Bearer $TOKEN" -d '{"topic":"my first job"}'
        curl -s -w '\nsecond %{http_code}\n' -X POST "$INKRA_API_URL/questions" \
            -H "Authorization: Bearer $TOKEN" -d '{"topic":"my first job"}'
        echo "starts $(cat "$WORK/starts")"
        """#

    /// Runs `exec --bootstrap RUNTIME` around the client.
    static func serve(runtime: String, client: String = Self.client) async throws -> ProcessResult {
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

    /// Lambda does not reuse an execution environment whose Init failed: the next invocation
    /// starts a new one, Init and all ("Understand the Lambda execution environment lifecycle",
    /// https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html: Init errors,
    /// and the "suppressed init" after a failure).
    @Test("A failed start is tried again at the next invocation, as Lambda does, and the log says so")
    func initRetriedAtNextInvocation() async throws {
        let result = try await Self.serve(runtime: Self.failsTwice, client: Self.retryingClient)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        // The first request's new start failed too; the second request's served it.
        #expect(lines.first == "first 502", "\(result.standardOutput)")
        #expect(lines.dropFirst().first == #"{"answeredBy": "start 3"}"#, "\(result.standardOutput)")
        #expect(lines.dropFirst(2).first == "second 200", "\(result.standardOutput)")
        #expect(lines.dropFirst(3).first == "starts 3", "\(result.standardOutput)")
        let restarts = result.standardError.components(
            separatedBy: "starting the runtime again for the next invocation of generateQuestions")
        #expect(restarts.count - 1 == 2, "\(result.standardError)")
        #expect(result.standardError.contains("start 2 failed"), "\(result.standardError)")
    }
}
