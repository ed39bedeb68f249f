import EmulatorKit
import Foundation
import InkraJSON
import InkraTestSupport
import InkraTime
import InkraUsage
import SingleTable
import Testing

@Suite("--state survives kill -9: the write-ahead journal")
struct CrashSafeStateTests {
    static let when = Timestamp(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z

    /// `count` generateQuestions events, one per free user, each with the user's token.
    static func events(_ count: Int, in folder: URL) throws -> URL {
        let events = folder.appendingPathComponent("events/generateQuestions")
        try FileManager.default.createDirectory(at: events, withIntermediateDirectories: true)
        for index in 0..<count {
            let token = try DevelopmentTokens.mint(
                with: Repository.developmentKey, claims: .init(sub: "crash-user-\(index)"), at: when)
            let event = SampleEvents.event(.restGenerate, token: token, at: when)
            try Data(event.jsonBytes).write(to: events.appendingPathComponent(String(format: "%04d.json", index)))
        }
        return events
    }

    @Test("kill -9 mid-replay, restart: every consumption answered 200 is there and the state reads")
    func killMidReplay() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let events = try Self.events(600, in: folder)
        let state = folder.appendingPathComponent("state.json")
        let (lines, status) = try await ChildProcess.killAfter(
            lines: 60, Repository.emulatorBinary, ["replay", events.path, "--json", "--state", state.path])
        #expect(status == -9, "the replay ended before it could be killed")
        #expect(lines.count < 600)
        let answered = try lines.compactMap { line -> String? in
            let record = try JSONParser.parse(Array(line.utf8))
            guard record["statusCode"] == 200, let file = record["file"]?.string else { return nil }
            return "crash-user-\(Int(URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent)!)"
        }
        #expect(answered.count >= 60)

        do {
            // This process holds the state file while the stack lives: the commands below run after.
            let restarted = try await EmulatorStack(options: Repository.options(state: state))
            for user in answered {
                let usage = try await restarted.store.usage(for: user, at: Self.when, limits: .free)
                #expect(usage.monthly.used == 1, "\(user) was answered 200 before the kill but its usage is gone")
            }
        }
        let reread = try await runEmulator(
            ["usage", "--sub", try #require(answered.last), "--state", state.path, "--now", "2027-01-15T08:00:00Z"])
        #expect(reread.status == 0, "\(reread.standardError)")
        #expect(reread.standardOutput.contains("1"))

        // Finishing the run: the users answered before the kill are not charged twice.
        let second = try await runEmulator(["replay", events.path, "--json", "--state", state.path])
        #expect(second.status == 0 || second.status == 1)
        let after = try await EmulatorStack(options: Repository.options(state: state))
        for user in answered.prefix(20) {
            let usage = try await after.store.usage(for: user, at: Self.when, limits: .free)
            #expect(usage.monthly.used == 2, "\(user): one more request, one more unit")
        }
        let journal = try Data(contentsOf: state.appendingPathExtension("journal"))
        #expect(journal.isEmpty, "a clean exit folds the journal into the snapshot")
    }

    @Test("A journal line cut short by a crash is dropped; a corrupt line in the middle is refused")
    func tornAndCorruptJournal() throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("state.json")
        let file = StateFile(url: url, tableName: "inkra-usage")
        let journal = try file.openJournal()
        let item: Item = ["PK": .s("USER#a"), "SK": .s("USAGE#2027-01"), "interviewCount": .n(1)]
        try journal.record([TableChange(key: ["PK": .s("USER#a"), "SK": .s("USAGE#2027-01")], item: item)])
        let handle = try FileHandle(forWritingTo: file.journalURL)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"changes":[{"key":{"PK":{"S":"USER#b"#.utf8))
        try handle.close()
        #expect(try file.load() == [item])

        try Data("not json\n".utf8 + (try Data(contentsOf: file.journalURL))).write(to: file.journalURL)
        #expect {
            _ = try file.load()
        } throws: { error in
            (error as? EmulatorError)?.message.contains("is corrupt at line 1") == true
        }
    }

    @Test("A deletion in the journal removes the item from the snapshot it is folded into")
    func deletionsFold() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = folder.appendingPathComponent("state.json")
        let stack = try await EmulatorStack(options: Repository.options(state: state))
        let table = try #require(stack.memoryTable)
        let key: Item = ["PK": .s("USER#d"), "SK": .s("PROFILE")]
        _ = try await table.putItem(PutItemRequest(tableName: "inkra-usage", item: key.merging(["n": .n(1)]) { $1 }))
        try stack.saveState()
        _ = try await table.deleteItem(DeleteItemRequest(tableName: "inkra-usage", key: key))
        // No save: the process "dies" here; the journal holds the deletion.
        #expect(try StateFile(url: state, tableName: "inkra-usage").load().isEmpty)
    }
}
