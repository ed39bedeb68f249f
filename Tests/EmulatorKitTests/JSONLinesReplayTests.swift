import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime
import Testing

@testable import EmulatorKit

@Suite("Replay of JSON-lines files")
struct JSONLinesReplayTests {
    @Test("A JSON-lines file replays as the same events in a folder do: same functions, answers and verdicts")
    func sameAsFolder() async throws {
        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let workload = try InterleavedWorkload()
        let folder = scratch.appendingPathComponent("workload")
        let file = scratch.appendingPathComponent("workload.jsonl")
        try workload.writeFolder(folder)
        try workload.writeLines(file)

        let fromFolder = await Replayer(stack: try await EmulatorStack(options: Repository.options())).replay([folder])
        let fromLines = await Replayer(stack: try await EmulatorStack(options: Repository.options())).replay([file])
        #expect(fromLines.count == fromFolder.count)
        #expect(fromLines.map(\.function) == fromFolder.map(\.function))
        #expect(fromLines.map { $0.invocation?.statusCode } == fromFolder.map { $0.invocation?.statusCode })
        #expect(fromLines.map(\.ok) == fromFolder.map(\.ok))
        #expect(fromLines.map(\.checked) == fromFolder.map(\.checked))
        #expect(fromLines.map(\.mismatches) == fromFolder.map(\.mismatches))
        #expect(fromLines.contains { $0.mismatches == ["statusCode: expected 200, got 429"] })
        #expect(fromLines[0].file == "\(file.relativePath):1")
    }

    @Test("Bad lines are reported with their line numbers and the rest still run")
    func badLines() async throws {
        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("day.jsonl")
        let good = SampleEvents.event(.restUsage, token: nil, at: Timestamp.now)
            .setting("checkUsage", at: ["x-inkra-function"])
            .setting(["statusCode": 401], at: ["x-inkra-expected"])
        let oversized =
            #"{"x-inkra-function": "checkUsage", "pad": ""#
            + String(repeating: "x", count: Replayer.maximumEventSize) + #""}"#
        let lines = [
            good.jsonString, "{ not json", "", "[1, 2]", #"{"x-inkra-function": "sendEmail"}"#,
            #"{"requestContext": {}}"#, good.setting("yes", at: ["x-inkra-expected"]).jsonString, oversized,
            good.setting(["statusCode": 200], at: ["x-inkra-expected"]).jsonString,
        ]
        try Data(("\u{FEFF}" + lines.joined(separator: "\r\n")).utf8).write(to: file)
        let records = await Replayer(stack: try await EmulatorStack(options: Repository.options())).replay([file])
        #expect(records.map(\.file) == [1, 2, 4, 5, 6, 7, 8, 9].map { "\(file.relativePath):\($0)" })
        #expect(records[0].ok && records[0].checked)
        #expect(records[1].problem?.hasPrefix("not valid JSON") == true)
        #expect(records[2].problem == "an event must be a JSON object, not array")
        #expect(records[3].problem?.hasPrefix("x-inkra-function \"sendEmail\" is not one of") == true)
        #expect(records[4].problem?.hasPrefix("cannot tell which function this event is for") == true)
        #expect(records[5].problem == "x-inkra-expected must be a JSON object, not string")
        #expect(records[6].problem == "event is \(oversized.utf8.count) bytes; Lambda accepts at most 6291456")
        #expect(records[7].mismatches == ["statusCode: expected 200, got 401"])
    }

    @Test("--update refuses to write into a JSON-lines file, event by event, and changes no file")
    func updateRefused() async throws {
        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("day.jsonl")
        let event = SampleEvents.event(.restUsage, token: nil, at: Timestamp.now).setting(
            "checkUsage", at: ["x-inkra-function"])
        try Data((event.jsonString + "\n").utf8).write(to: file)
        let records = await Replayer(stack: try await EmulatorStack(options: Repository.options()), update: true)
            .replay([file])
        #expect(records.count == 1)
        #expect(records[0].problem?.hasPrefix("--update cannot write into a JSON-lines file") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["day.jsonl"])
    }

    @Test("Events sharing a user or an idempotency key, even across users, share a lane, in input order")
    func lanes() {
        let keys: [[String]] = [
            ["user a"], ["user b", "idempotency k"], ["user c"], ["user a", "idempotency k"], ["user d"], ["user b"],
            [], ["user e"],
        ]
        let lanes = ReplayLanes.lanes(for: keys, count: 2)
        #expect(lanes.count == 2)
        #expect(lanes.flatMap { $0 }.sorted() == Array(keys.indices))
        let tied = lanes.first { $0.contains(0) } ?? []
        #expect([0, 1, 3, 5].allSatisfy(tied.contains), "a and b are tied by the key k")
        for lane in lanes { #expect(lane == lane.sorted()) }
        #expect(lanes.allSatisfy { !$0.isEmpty })
    }

    @Test("Progress of a long replay goes to standard error, never to standard output")
    func progressOnStandardError() async throws {
        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("long.jsonl")
        let event = SampleEvents.event(.restUsage, token: nil, at: Timestamp.now).setting(
            "checkUsage", at: ["x-inkra-function"])
        let line = event.jsonString + "\n"
        let handle = try FileHandle(
            forWritingTo: {
                try Data().write(to: file)
                return file
            }())
        for _ in 0..<60 { handle.write(Data(String(repeating: line, count: 1000).utf8)) }
        try handle.close()
        let result = try await runEmulator(["replay", file.path, "--jobs", "1"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("  replayed "))
        #expect(result.standardError.contains(" events, "))
        #expect(!result.standardOutput.contains("replayed"))
        #expect(result.standardOutput.split(separator: "\n").count == 60_001)
    }
}

@Suite("Import of JSON-lines events (spawned)")
struct JSONLinesImportTests {
    @Test("import reads a JSON-lines file of events into a folder that replays as the file does; bad lines by number")
    func importLines() async throws {
        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("day.jsonl")
        var workload = try InterleavedWorkload(count: 60)
        workload.broken = [("000010-broken.json", "{ not json")]
        try workload.writeLines(file)
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        handle.write(Data(#"{"x-inkra-function": "checkUsage", "headers": {}}"#.utf8 + [0x0A]))
        try handle.close()

        let out = scratch.appendingPathComponent("imported")
        let result = try await runEmulator(["import", file.path, "--out", out.path])
        #expect(result.status == 1, "a broken line makes the import exit 1")
        #expect(result.standardError.contains("broken: \(file.path):11: not valid JSON"))
        #expect(result.standardError.contains("broken: \(file.path):62: the event has no time"))
        #expect(result.standardOutput.contains("60 events"))

        let fromLines = await Replayer(stack: try await EmulatorStack(options: Repository.options())).replay([file])
        let fromFolder = await Replayer(stack: try await EmulatorStack(options: Repository.options())).replay([out])
        let ran = Array(fromLines.filter { $0.problem == nil }.prefix(60))
        #expect(fromFolder.count == 60)
        #expect(fromFolder.map(\.function) == ran.map(\.function))
        #expect(fromFolder.map { $0.invocation?.statusCode } == ran.map { $0.invocation?.statusCode })
        #expect(fromFolder.map(\.mismatches) == ran.map(\.mismatches))
        #expect(fromFolder.map(\.checked) == ran.map(\.checked))
    }
}
