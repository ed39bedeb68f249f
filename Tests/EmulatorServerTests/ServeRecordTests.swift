import EmulatorKit
import EmulatorServer
import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime
import NIOHTTP1
import Testing

@Suite("serve --record: a session becomes a regression suite")
struct ServeRecordTests {
    /// Runs a session against a recording server, writing into `folder`, and returns each
    /// request's status (also the session `ServeRecordCostTests` bills).
    static func recordSession(payload: String, into folder: URL) async throws -> [Int] {
        var settings = ServeFixture.settings(payload: payload == "v1" ? .v1 : .v2)
        let recorder = try ServeRecorder(directory: folder)
        settings.gateway.observers.append { recorder.record($0) }
        var statuses: [Int] = []
        try await ServeFixture.run(settings) { served in
            let alice = try ServeFixture.token("rec-alice")
            for _ in 0..<3 { statuses.append(try await served.generate(token: alice).status) }
            let usage = try await served.send(
                .GET, served.endpoints.api, path: "/usage", headers: [("Authorization", "Bearer \(alice)")])
            statuses.append(usage.status)
            statuses.append(try await served.generate(token: nil).status)
            statuses.append(try await served.generate(token: "not.a.token").status)
            statuses.append(
                try await served.generate(token: try ServeFixture.token("rec-blocked", groups: ["blocked"])).status)
            statuses.append(
                try await served.generate(token: try ServeFixture.token("rec-carol", tier: "premium")).status)
            // API Gateway answers these itself, without a function: nothing is recorded.
            statuses.append(try await served.send(.GET, served.endpoints.api, path: "/nowhere").status)
        }
        return statuses
    }

    @Test(
        "Replaying a recorded session gives zero mismatches, a 429, a 401 and a 403 included", arguments: ["v1", "v2"])
    func replayRecorded(payload: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let statuses = try await Self.recordSession(payload: payload, into: folder)
        let refusedToken = payload == "v1" ? 401 : 403
        #expect(statuses == [200, 200, 429, 200, 401, refusedToken, 403, 200, payload == "v1" ? 403 : 404])

        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let events = names.filter { !$0.hasSuffix(".expected.json") }
        #expect(events.count == 8)
        #expect(names.count == 16)
        #expect(events[3].contains("-000004-checkUsage-"))
        #expect(events[0].hasPrefix("2027-01-15T08-10-00.000Z-000001-generateQuestions-"))
        let first = try JSONParser.parse(Data(contentsOf: folder.appendingPathComponent(events[0])))
        #expect(first["x-inkra-recorded-at"] == "2027-01-15T08:10:00.000Z")
        #expect(first["x-inkra-function"] == "generateQuestions")
        let limited = try JSONParser.parse(
            Data(
                contentsOf: folder.appendingPathComponent(
                    events[2].replacingOccurrences(of: ".json", with: ".expected.json"))))
        #expect(limited["statusCode"] == 429)
        #expect(limited["body"]?["window"] == "hour")
        #expect(limited["headers"]?["Retry-After"] != nil)

        var options = EmulatorOptions(clock: { Timestamp.now })
        options.developmentKey = ServeFixture.developmentKey
        let records = await Replayer(stack: try await EmulatorStack(options: options)).replay([folder])
        #expect(records.count == 8)
        for record in records where !record.ok {
            Issue.record("\(ReplayReporter.line(for: record))")
        }
        #expect(records.allSatisfy { $0.checked })
        #expect(records.compactMap { $0.invocation?.statusCode } == Array(statuses.prefix(8)))
    }

    @Test("A body the request model refused is not recorded: no function ran, so there is nothing to replay")
    func refusedBodyNotRecorded() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var settings = ServeFixture.settings(validatesBodies: true)
        let recorder = try ServeRecorder(directory: folder)
        settings.gateway.observers.append { recorder.record($0) }
        try await ServeFixture.run(settings) { served in
            let token = try ServeFixture.token("rec-refused")
            #expect(try await served.generate(token: token, body: #"{"count":3}"#).status == 400)
            #expect(try await served.generate(token: token).status == 200)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files.count == 2, "\(files)")
        #expect(files.allSatisfy { $0.contains("generateQuestions") })
        var options = EmulatorOptions(clock: { Timestamp.now })
        options.developmentKey = ServeFixture.developmentKey
        let records = await Replayer(stack: try await EmulatorStack(options: options)).replay([folder])
        #expect(records.map { $0.invocation?.statusCode } == [200])
        #expect(records.allSatisfy { $0.ok })
    }

    @Test("A recorded answer that no longer holds is a mismatch on replay")
    func changedAnswerMismatches() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await Self.recordSession(payload: "v1", into: folder)
        var options = EmulatorOptions(clock: { Timestamp.now })
        options.developmentKey = ServeFixture.developmentKey
        let limits = folder.deletingLastPathComponent().appendingPathComponent("limits-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: limits) }
        try Data(#"{"free": {"hourly": 3}}"#.utf8).write(to: limits)
        options.limitsFile = limits
        let records = await Replayer(stack: try await EmulatorStack(options: options)).replay([folder])
        let failed = records.filter { !$0.ok }
        #expect(failed.count == 2, "the third call is admitted now, and the usage it reports changes")
        #expect(failed.first?.mismatches.first == "statusCode: expected 429, got 200")
    }

    @Test("serve --record refuses a user pool's tokens and an unusable folder, exit 2 naming the flag")
    func commandLineRefusals() async throws {
        let pool = try await ChildProcess.run(
            ChildProcess.built("inkra-emulator"),
            ["serve", "--record", "/tmp/unused-session", "--user-pool-id", "us-east-1_AbCdEf123"],
            directory: ChildProcess.repositoryRoot)
        #expect(pool.status == 2)
        #expect(pool.standardError.contains("--record keeps each request's token to replay it"))

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("not a folder".utf8).write(to: file)
        let folder = try await ChildProcess.run(
            ChildProcess.built("inkra-emulator"),
            ["serve", "--record", file.appendingPathComponent("session").path, "--port", "0", "--no-console"],
            directory: ChildProcess.repositoryRoot)
        #expect(folder.status == 2)
        #expect(
            folder.standardError.contains("--record: cannot create \(file.path)/session"), "\(folder.standardError)")
    }

    @Test("A folder that cannot be created is refused, naming --record and the folder")
    func unwritableFolder() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("not a folder".utf8).write(to: file)
        let target = file.appendingPathComponent("session")
        let error = #expect(throws: EmulatorError.self) { _ = try ServeRecorder(directory: target) }
        #expect(
            error?.message.hasPrefix("--record: cannot create \(target.path)") == true, "\(String(describing: error))")
    }
}
