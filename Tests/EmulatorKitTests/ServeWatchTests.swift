import Foundation
import InkraJSON
import InkraTestSupport
import Testing

/// `serve --watch`, driven as a developer drives it: a change to a watched source file rebuilds the
/// runtime and the next answer comes from the new build; a build that fails keeps the last good one
/// and prints the compiler's output. The runtime is a few lines of Python speaking the Runtime API,
/// "built" by copying its source, so the test exercises the watching and the swap, not the compiler.
@Suite("serve --watch: rebuild, swap between invocations, keep the last good build (spawned)")
struct ServeWatchTests {
    /// A checkUsage runtime that answers every invocation with `version` as its body.
    static func runtime(version: String) -> String {
        """
        #!/usr/bin/env python3
        import json, os, urllib.request
        api = "http://" + os.environ["AWS_LAMBDA_RUNTIME_API"] + "/2018-06-01/runtime/invocation/"
        while True:
            with urllib.request.urlopen(api + "next") as invocation:
                request_id = invocation.headers["Lambda-Runtime-Aws-Request-Id"]
            answer = json.dumps({"statusCode": 200, "body": "\(version)"}).encode()
            urllib.request.urlopen(urllib.request.Request(api + request_id + "/response", data=answer, method="POST"))
        """
    }

    /// The "build": refuses a source that says BROKEN, as a compiler refuses a syntax error.
    static let build = #"""
        if grep -q BROKEN src/runtime.py; then echo "src/runtime.py:3: error: expected expression" >&2; exit 1; fi
        cp src/runtime.py out/runtime.py && chmod +x out/runtime.py
        """#

    /// GET /usage with a token: the status and the body.
    static func usage(_ api: String, token: String) async throws -> String {
        try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["curl", "-s", "-w", " %{http_code}", "-H", "Authorization: Bearer \(token)", "\(api)/usage"]
        ).standardOutput
    }

    @Test("A change rebuilds and the next answer is the new build's; a failed build keeps serving the last good one")
    func rebuildAndSwap() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["src", "out"] {
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        let source = folder.appendingPathComponent("src/runtime.py")
        try Data(Self.runtime(version: "v1").utf8).write(to: source)
        let first = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", Self.build], directory: folder)
        try #require(first.status == 0, "\(first.standardError)")
        let token = try await runEmulator(["token", "--sub", "ada"]).standardOutput
            .trimmingCharacters(in: .whitespacesAndNewlines)

        let serve = try RunningChild(
            Repository.emulatorBinary,
            [
                "serve", "--port", "0", "--lambda-port", "0", "--runtime-api-port", "0", "--dynamodb-port", "0",
                "--console-port", "0", "--no-cognito", "--no-access-log", "--runtime-function", "checkUsage",
                "--bootstrap", "out/runtime.py", "--watch", "--watch-path", "src", "--watch-build", Self.build,
            ], directory: folder, includingStandardError: true)
        guard let banner = await serve.line(containing: "API Gateway"),
            let api = banner.split(separator: " ").first(where: { $0.hasPrefix("http://") }).map(String.init),
            let consoleLine = await serve.line(containing: "Console "),
            let console = consoleLine.split(separator: " ").first(where: { $0.hasPrefix("http://") }).map(String.init),
            await serve.line(containing: "watching src") != nil
        else {
            _ = await serve.stop(with: SIGKILL)
            Issue.record("serve --watch did not start: \(serve.lines)")
            return
        }
        #expect(try await Self.usage(api, token: token) == "v1 200")

        try Data(Self.runtime(version: "v2").utf8).write(to: source)
        let swapped = await serve.line(containing: "the next invocation runs the new build")
        #expect(swapped != nil, "\(serve.lines)")
        #expect(serve.lines.contains { $0.contains("runtime.py changed; building") })
        #expect(try await Self.usage(api, token: token) == "v2 200")

        try Data((Self.runtime(version: "v3") + "\nBROKEN\n").utf8).write(to: source)
        let failed = await serve.line(containing: "the build failed (exit 1")
        #expect(failed != nil, "\(serve.lines)")
        #expect(serve.lines.contains { $0.contains("src/runtime.py:3: error: expected expression") })
        #expect(try await Self.usage(api, token: token) == "v2 200")
        // The console's feed has the same rebuild lines, the failure with the compiler's first lines.
        let rebuilds = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["curl", "-s", "\(console)api/rebuilds"]
        ).standardOutput
        let lines = try JSONParser.parse(Array(rebuilds.utf8))["rebuilds"]?.array ?? []
        #expect(lines.map { $0["stage"]?.string } == ["started", "succeeded", "started", "failed"], "\(rebuilds)")
        #expect(lines.last?["lines"]?.array?.first?.string == "src/runtime.py:3: error: expected expression")
        // No runtime died on the way: nothing was reported as a runtime's end.
        #expect(!serve.lines.contains { $0.contains("the runtime exited") }, "\(serve.lines)")
        #expect(await serve.stop() == 0)
    }

    @Test("run-runtime --watch: replays, then replays again with each good build; a failed build waits")
    func runRuntimeWatch() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["src", "out", "events/checkUsage"] {
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        let event: JSONValue = [
            "resource": "/usage", "path": "/usage", "httpMethod": "GET", "headers": [:], "body": nil,
            "requestContext": [
                "requestTimeEpoch": 1_794_819_600_000, "requestId": "watch-1",
                "authorizer": ["principalId": "ada", "sub": "ada", "tier": "free"],
            ],
        ]
        try Data(event.jsonString.utf8).write(to: folder.appendingPathComponent("events/checkUsage/01-usage.json"))
        try Data(#"{"statusCode": 200, "body": "v1"}"#.utf8).write(
            to: folder.appendingPathComponent("events/checkUsage/01-usage.expected.json"))
        let source = folder.appendingPathComponent("src/runtime.py")
        try Data(Self.runtime(version: "v1").utf8).write(to: source)
        let first = try await ChildProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", Self.build], directory: folder)
        try #require(first.status == 0, "\(first.standardError)")

        let watching = try RunningChild(
            Repository.emulatorBinary,
            [
                // The function's timeout is not this test's subject: generous, for a busy machine
                // (the default 3 s ran out once with the suite's other processes beside it).
                "run-runtime", "out/runtime.py", "--function", "checkUsage", "events", "--jobs", "1", "--watch",
                "--watch-path", "src", "--watch-build", Self.build, "--timeout", "60",
            ], directory: folder, includingStandardError: true)
        let passed = await watching.line(containing: "1 events: 1 passed, 0 failed")
        #expect(passed != nil, "\(watching.lines)")
        #expect(await watching.line(containing: "watching src") != nil, "\(watching.lines)")

        try Data(Self.runtime(version: "v2").utf8).write(to: source)
        let failed = await watching.line(containing: "1 events: 0 passed, 1 failed")
        #expect(failed != nil, "\(watching.lines)")
        #expect(watching.lines.contains { $0.contains("replaying the events with the new build") })
        #expect(watching.lines.contains(#"    body: expected "v1", got "v2""#), "\(watching.lines)")
        #expect(await watching.line(containing: "replayed the events with the new build") != nil)

        try Data((Self.runtime(version: "v3") + "\nBROKEN\n").utf8).write(to: source)
        #expect(await watching.line(containing: "the build failed (exit 1") != nil, "\(watching.lines)")
        #expect(watching.lines.contains { $0.contains("src/runtime.py:3: error: expected expression") })
        // The failed build replayed nothing: two summaries, the first run's and the good rebuild's.
        #expect(watching.lines.filter { $0.hasPrefix("1 events: ") }.count == 2, "\(watching.lines)")
        _ = await watching.stop(with: SIGINT)
    }

    @Test("--watch needs --bootstrap; --watch-path and --watch-build need --watch")
    func refusals() async throws {
        let alone = try await runEmulator(["serve", "--watch"])
        #expect(alone.status == 2)
        #expect(alone.standardError.contains("--watch rebuilds the runtime --bootstrap starts"))
        let path = try await runEmulator(["serve", "--watch-path", "src"])
        #expect(path.status == 2)
        #expect(path.standardError.contains("--watch-path and --watch-build go with --watch"))
    }
}
