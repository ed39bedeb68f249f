import Foundation
import InkraJSON
import InkraTestSupport
import Testing

/// `serve --integration-timeout`: API Gateway stops waiting for a function and answers for it.
///
/// AWS's pages: the REST API's integration timeout is 50 ms to 29 s by default
/// (https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html), after which API
/// Gateway answers 504 (https://repost.aws/knowledge-center/api-gateway-504-errors), here through
/// template.yaml's `INTEGRATION_TIMEOUT` gateway response; an HTTP API waits at most 30 s
/// (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html) and its
/// answer has no gateway-response mapping: `{"message":"Service Unavailable"}` with 503 (the status
/// these pages do not state; it is what deployed HTTP APIs are reported to answer).
@Suite("serve --integration-timeout: a function that outlasts it gets API Gateway's answer (spawned)")
struct IntegrationTimeoutTests {
    /// A checkUsage runtime that takes 5 s over each invocation, then answers 200.
    static let slowRuntime = """
        #!/usr/bin/env python3
        import json, os, time, urllib.request
        api = "http://" + os.environ["AWS_LAMBDA_RUNTIME_API"] + "/2018-06-01/runtime/invocation/"
        while True:
            with urllib.request.urlopen(api + "next") as invocation:
                request_id = invocation.headers["Lambda-Runtime-Aws-Request-Id"]
            time.sleep(5)
            answer = json.dumps({"statusCode": 200, "body": "late"}).encode()
            urllib.request.urlopen(urllib.request.Request(api + request_id + "/response", data=answer, method="POST"))
        """

    @Test(
        "REST API: 504 with INTEGRATION_TIMEOUT's body and Retry-After; HTTP API: 503 Service Unavailable",
        arguments: [
            ("v1", "504", #"{"error":"Endpoint request timed out","code":"timeout"}"#),
            ("v2", "503", #"{"message":"Service Unavailable"}"#),
        ])
    func timesOut(payload: String, status: String, body: String) async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let runtime = folder.appendingPathComponent("slow.py")
        try Data(Self.slowRuntime.utf8).write(to: runtime)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: runtime.path)
        let token = try await runEmulator(["token", "--sub", "ada"]).standardOutput
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let serve = try RunningChild(
            Repository.emulatorBinary,
            [
                "serve", "--port", "0", "--lambda-port", "0", "--runtime-api-port", "0", "--dynamodb-port", "0",
                "--no-console", "--no-cognito", "--no-access-log", "--payload", payload,
                "--runtime-function", "checkUsage", "--bootstrap", runtime.path, "--timeout", "20",
                "--integration-timeout", "1",
            ], directory: folder, includingStandardError: true)
        guard let banner = await serve.line(containing: "API Gateway"),
            let api = banner.split(separator: " ").first(where: { $0.hasPrefix("http://") }).map(String.init),
            await serve.line(containing: "Press Ctrl-C") != nil
        else {
            _ = await serve.stop(with: SIGKILL)
            Issue.record("serve did not start: \(serve.lines)")
            return
        }
        let answer = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["curl", "-s", "-D", "-", "-H", "Authorization: Bearer \(token)", "\(api)/usage"]
        ).standardOutput
        let lines = answer.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first?.hasPrefix("HTTP/1.1 \(status)") == true, "\(answer)")
        #expect(lines.last == body, "\(answer)")
        if payload == "v1" {
            #expect(lines.contains { $0.lowercased() == "retry-after: 2" }, "\(answer)")
        }
        #expect(await serve.stop() == 0)
    }

    @Test("--integration-timeout must be positive")
    func refusal() async throws {
        let zero = try await runEmulator(["serve", "--integration-timeout", "0"])
        #expect(zero.status == 2)
        #expect(zero.standardError.contains("--integration-timeout must be a positive number of seconds"))
    }
}
