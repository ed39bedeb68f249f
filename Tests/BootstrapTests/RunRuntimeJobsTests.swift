import EmulatorKit
import EmulatorServer
import Foundation
import HTTPText
import InkraJSON
import InkraTestSupport
import InkraTime
import Testing

/// `run-runtime --jobs 2`: two real `bootstrap` processes, each with a Runtime API and an
/// in-memory table of its own, must give what one gives.
@Suite("run-runtime --jobs (spawned, the real bootstrap)", .timeLimit(.minutes(5)))
struct RunRuntimeJobsTests {
    /// `run-runtime <executable> --function generateQuestions <file> --jobs <jobs>`.
    static func runRuntime(
        _ file: URL, jobs: Int, executable: URL = ChildProcess.built("bootstrap"), _ more: [String] = []
    ) async throws -> ProcessResult {
        try await ChildProcess.run(
            ChildProcess.built("inkra-emulator"),
            [
                "run-runtime", executable.path, "--function", "generateQuestions", file.path, "--jobs", String(jobs),
                "--timeout", "60",
            ] + more)
    }

    /// Text lines without the time each event took and the replay took, which differ from run to run.
    static func withoutTimes(_ output: String) -> [String] {
        output.split(separator: "\n").map { line in
            String(line.replacing(#/ +(in )?[0-9.]+ m?s(?=  \(|$)/#, with: ""))
        }
    }

    /// `--json` lines without their `trace`.
    static func withoutTraces(_ output: String) -> [JSONValue] {
        output.split(separator: "\n").map { line in
            guard var object = try? JSONParser.parse(String(line)).object else { return .string(String(line)) }
            object["trace"] = nil
            return .object(object)
        }
    }

    /// A fresh folder, removed by the caller.
    static func scratch() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-jobs-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A runtime executable that runs `bootstrap` for the first process to start it, and
    /// `otherwise` (shell) for the next.
    static func firstOnlyRuntime(in folder: URL, otherwise: String) throws -> URL {
        let script = folder.appendingPathComponent("runtime.sh")
        try Data(
            """
            #!/bin/sh
            if mkdir '\(folder.path)/first' 2>/dev/null; then exec '\(ChildProcess.built("bootstrap").path)'; fi
            \(otherwise)

            """.utf8
        ).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return script
    }

    @Test("--jobs 2 prints the lines of --jobs 1 in the same order and exits alike, over several chunks")
    func sameAsOneRuntime() async throws {
        let scratch = Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("workload.jsonl")
        try RuntimeWorkload().write(to: file)

        let one = try await Self.runRuntime(file, jobs: 1, ["--json"])
        let two = try await Self.runRuntime(file, jobs: 2, ["--json"])
        #expect(one.status == 1, "refused calls mismatch their expected 200: \(one.standardError)")
        #expect(two.status == one.status, "\(two.standardError)")
        // Each line holds its invocation's X-Ray segments, whose ids and times are the run's own.
        #expect(Self.withoutTraces(two.standardOutput) == Self.withoutTraces(one.standardOutput))
        for line in one.standardOutput.split(separator: "\n").compactMap({ try? JSONParser.parse(String($0)) }) {
            #expect(line["trace"]?["name"] == "## generateQuestions", "\(line)")
        }
        #expect(two.standardError.contains("runtime 2 of 2: "))
        let lines = one.standardOutput.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
        #expect(lines.count == 600, "three chunks of events")
        #expect(lines.contains { $0["statusCode"] == 429 }, "the workload reaches the limits")
        #expect(lines.contains { $0["statusCode"] == 200 })
        #expect(lines.contains { $0["response"]?["headers"]?["Idempotent-Replayed"] == "true" })
        #expect(!lines.contains { $0["error"] != nil }, "every event reached a runtime and was answered")

        let textOne = try await Self.runRuntime(file, jobs: 1)
        let textTwo = try await Self.runRuntime(file, jobs: 2)
        #expect(textTwo.status == textOne.status)
        #expect(Self.withoutTimes(textTwo.standardOutput) == Self.withoutTimes(textOne.standardOutput))
        #expect(textOne.standardOutput.contains("600 events: "))
    }

    @Test("An event tying users two runtimes hold stops the replay before it, after the lines --jobs 1 prints first")
    func tiedUsersStop() async throws {
        let scratch = Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("tied.jsonl")
        try RuntimeWorkload.tiedLater().write(to: file)

        let one = try await Self.runRuntime(file, jobs: 1, ["--json"])
        let two = try await Self.runRuntime(file, jobs: 2, ["--json"])
        let linesOne = Self.withoutTraces(one.standardOutput)
        let linesTwo = Self.withoutTraces(two.standardOutput)
        #expect(linesOne.count == 261)
        #expect(linesTwo.count == 256)
        #expect(linesTwo == Array(linesOne.prefix(256)), "what runs is what --jobs 1 prints")
        #expect(two.status == 1)
        #expect(two.standardError.contains("stopped before \(file.path):257: it shares a user or an Idempotency-Key"))
        #expect(two.standardError.contains("runtimes 1 and 2 each ran"))
        #expect(two.standardError.contains("replay with --jobs 1, or share one table with --dynamodb-endpoint"))
        #expect(!two.standardError.contains("shared"), "the key itself is not printed")
    }

    @Test("A runtime of two that fails to start is named with its error, the other runs its events, nothing hangs")
    func oneFailsToStart() async throws {
        let scratch = Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("workload.jsonl")
        try RuntimeWorkload(count: 80).write(to: file)
        let runtime = try Self.firstOnlyRuntime(
            in: scratch, otherwise: "_HANDLER=deleteAll exec '\(ChildProcess.built("bootstrap").path)'")

        let result = try await Self.runRuntime(file, jobs: 2, executable: runtime, ["--json"])
        #expect(result.status == 1)
        let failed = try #require(
            result.standardError.split(separator: "\n").first { $0.contains(" failed to start ") },
            "\(result.standardError)")
        #expect(failed.contains(#/^runtime [12] of 2 \(pid [0-9]+\) failed to start \(/#))
        #expect(failed.contains("_HANDLER"))
        let lines = result.standardOutput.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
        #expect(lines.count == 80, "every event is reported")
        #expect(lines.contains { $0["statusCode"] == 200 }, "the runtime that started answered its users")
        #expect(lines.contains { $0["error"]?["errorMessage"]?.string?.contains("_HANDLER") == true })
    }

    @Test("A runtime of two that exits at once is named with its exit status")
    func oneExits() async throws {
        let scratch = Self.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("workload.jsonl")
        try RuntimeWorkload(count: 80).write(to: file)
        let runtime = try Self.firstOnlyRuntime(in: scratch, otherwise: "exit 3")

        let result = try await Self.runRuntime(file, jobs: 2, executable: runtime)
        #expect(result.status == 1)
        #expect(
            result.standardError.contains(
                #/runtime [12] of 2 \(pid [0-9]+\) exited with status 3 before the replay ended/#),
            "\(result.standardError)")
        #expect(result.standardOutput.contains("80 events: "))
        #expect(result.standardOutput.contains("Runtime.ExitError"))
    }

    @Test("A Runtime API port taken by another server stops the start, naming the runtime; runtime 1 is stopped")
    func portTaken() async throws {
        let taken = try await RuntimeAPIServer(clock: { Timestamp.now })
        let result = try await Self.runRuntime(
            URL(fileURLWithPath: "events"), jobs: 2, ["--runtime-api-port", String(taken.port - 1)])
        await taken.shutdown()
        #expect(result.status == 2)
        #expect(
            result.standardError.contains(#/runtime [12] of 2: cannot listen for the Runtime API on 127\.0\.0\.1:/#),
            "\(result.standardError)")
        #expect(result.standardOutput.isEmpty, "no event ran")
        // A runtime left running loses its Runtime API when the emulator exits, and says so on the
        // standard error it shares with the emulator (which the run above reads to its end).
        #expect(!result.standardError.contains("unreachable"), "\(result.standardError)")
    }

    @Test("--jobs 0, and a --runtime-api-port with no room for every runtime, are refused naming the flag")
    func refused() async throws {
        let zero = try await Self.runRuntime(URL(fileURLWithPath: "events"), jobs: 0)
        #expect(zero.status != 0)
        #expect(zero.standardError.contains("--jobs must be at least 1, not 0"))
        let port = try await Self.runRuntime(URL(fileURLWithPath: "events"), jobs: 2, ["--runtime-api-port", "65535"])
        #expect(port.status != 0)
        #expect(port.standardError.contains("--runtime-api-port must leave room for --jobs 2 ports"))
    }
}

/// With `--dynamodb-endpoint` the runtimes share one table, so any of them may run any event.
///
/// The table is the emulator's own DynamoDB endpoint (`serve`'s), not moto: moto's
/// TransactWriteItems copies the whole table first and restores that copy when the transaction is
/// cancelled, undoing the writes of other users' transactions that ran meanwhile, where AWS's
/// "Amazon DynamoDB Transactions: How it works" (Isolation levels for DynamoDB transactions)
/// makes a cancelled transaction change nothing and transactions on other items serializable.
/// Two runtimes refused and admitted side by side show it: on moto, runs of --jobs 2 differ.
@Suite("run-runtime --jobs on one shared table (spawned)", .timeLimit(.minutes(5)))
struct RunRuntimeJobsSharedTableTests {
    /// Runs `body` with a fresh in-memory table served over DynamoDB's JSON protocol, as `serve`
    /// serves it; stops the server afterwards.
    static func withSharedTable<Result>(_ body: (HTTPURL) async throws -> Result) async throws -> Result {
        var options = EmulatorOptions(clock: { Timestamp.now })
        options.developmentKey = RuntimeWorkload.developmentKey
        let server = try await LocalServer(
            stack: try await EmulatorStack(options: options), configuration: .ephemeral, accessLog: { _ in })
        let (ready, announce) = AsyncStream.makeStream(of: ServeEndpoints.self)
        let running = Task {
            defer { announce.finish() }
            try await server.run { announce.yield($0) }
        }
        do {
            guard let endpoint = await ready.first(where: { _ in true })?.dynamoDB else {
                throw EmulatorError("the DynamoDB endpoint did not start")
            }
            let result = try await body(endpoint)
            await server.shutdown()
            try await running.value
            return result
        } catch {
            await server.shutdown()
            _ = try? await running.value
            throw error
        }
    }

    @Test("Users tied in a later chunk run on one table: --jobs 2 prints every line of --jobs 1 and exits alike")
    func tiedUsersOnOneTable() async throws {
        let scratch = RunRuntimeJobsTests.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("tied.jsonl")
        try RuntimeWorkload.tiedLater().write(to: file)

        let one = try await Self.withSharedTable { endpoint in
            try await RunRuntimeJobsTests.runRuntime(
                file, jobs: 1, ["--json", "--dynamodb-endpoint", endpoint.absoluteString])
        }
        let two = try await Self.withSharedTable { endpoint in
            try await RunRuntimeJobsTests.runRuntime(
                file, jobs: 2, ["--json", "--dynamodb-endpoint", endpoint.absoluteString])
        }
        let lines = one.standardOutput.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
        #expect(lines.count == 261, "\(one.standardError)")
        #expect(lines.contains { $0["statusCode"] == 429 } && lines.contains { $0["statusCode"] == 200 })
        #expect(
            RunRuntimeJobsTests.withoutTraces(two.standardOutput)
                == RunRuntimeJobsTests.withoutTraces(one.standardOutput))
        #expect(two.status == one.status)
        #expect(!two.standardError.contains("stopped before"))
        #expect(two.standardError.contains("runtime 2 of 2: "))
    }
}
