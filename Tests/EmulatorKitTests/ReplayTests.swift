import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTime
import Testing

@Suite("Replay")
struct ReplayTests {
    @Test("Replaying events/ yields zero mismatches")
    func repositoryEvents() async throws {
        let stack = try await EmulatorStack(options: Repository.options())
        let records = await Replayer(stack: stack).replay([Repository.events])
        #expect(records.count >= 25)
        for record in records where !record.ok {
            Issue.record("\(ReplayReporter.line(for: record))")
        }
        #expect(records.allSatisfy { $0.checked }, "every event in events/ has an expectation")
        let functions = Set(records.compactMap(\.function))
        #expect(functions == Set(FunctionName.allCases))
    }

    @Test("Recorded events (named after their instant) replay in time order across function folders; others by name")
    func recordedOrder() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-order-\(UUID().uuidString)")
        let samples = [
            ("generateQuestions/01-rest-free-user.json", "generateQuestions/2026-11-17T10-00-00.000Z-a.json"),
            ("checkUsage/01-rest-new-user.json", "checkUsage/2026-11-17T10-30-00.000Z-b.json"),
            ("generateQuestions/01-rest-free-user.json", "generateQuestions/2026-11-17T11-00-00.000Z-c.json"),
            ("checkUsage/01-rest-new-user.json", "checkUsage/01-sample.json"),
        ]
        for (source, target) in samples {
            let url = folder.appendingPathComponent(target)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Repository.events.appendingPathComponent(source), to: url)
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let records = await Replayer(stack: try await EmulatorStack(options: Repository.options())).replay([folder])
        #expect(
            records.map { ($0.file as NSString).lastPathComponent } == [
                "2026-11-17T10-00-00.000Z-a.json", "2026-11-17T10-30-00.000Z-b.json", "2026-11-17T11-00-00.000Z-c.json",
                "01-sample.json",
            ])
    }

    @Test("Without kept results, each result is still reported, and the records keep only the verdicts")
    func verdictsOnly() async throws {
        var replayer = Replayer(stack: try await EmulatorStack(options: Repository.options()))
        replayer.keepsResults = false
        var reported: [Int?] = []
        let records = await replayer.replay([Repository.events]) { record, _, _ in
            reported.append(record.invocation?.statusCode)
        }
        let kept = await Replayer(stack: try await EmulatorStack(options: Repository.options())).replay([
            Repository.events
        ])
        #expect(records.count == kept.count)
        #expect(records.allSatisfy { $0.invocation == nil })
        #expect(records.map(\.ok) == kept.map(\.ok))
        #expect(records.map(\.checked) == kept.map(\.checked))
        #expect(reported == kept.map { $0.invocation?.statusCode })
    }

    @Test("A wrong expectation fails with a readable diff")
    func wrongExpectation() async throws {
        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let folder = scratch.appendingPathComponent("generateQuestions")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let token = try DevelopmentTokens.mint(
            with: Repository.developmentKey,
            claims: .init(sub: "diff-user"),
            at: Timestamp(timeIntervalSince1970: 1_800_000_000)
        )
        let event = SampleEvents.event(.restGenerate, token: token, at: Timestamp(timeIntervalSince1970: 1_800_000_000))
        try Data(event.jsonString.utf8).write(to: folder.appendingPathComponent("one.json"))
        let wrong: JSONValue = ["statusCode": 429, "body": ["usage": ["used": 3]]]
        try Data(wrong.jsonString.utf8).write(to: folder.appendingPathComponent("one.expected.json"))

        let stack = try await EmulatorStack(options: Repository.options())
        let records = await Replayer(stack: stack).replay([folder])
        let record = try #require(records.first)
        #expect(!record.ok)
        #expect(record.mismatches == ["statusCode: expected 429, got 200", "body.usage.used: expected 3, got 1"])
        let line = ReplayReporter.line(for: record)
        #expect(line.hasPrefix("✗ "))
        #expect(line.contains("statusCode: expected 429, got 200"))
        var tally = ReplayTally()
        for record in records { tally.add(record) }
        #expect(ReplayReporter.summary(tally, elapsed: .zero).contains("0 passed, 1 failed"))
    }

    @Test("An unreadable or malformed event is reported by name, and replay goes on")
    func malformedEvents() async throws {
        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let folder = scratch.appendingPathComponent("checkUsage")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("{ not json".utf8).write(to: folder.appendingPathComponent("a-broken.json"))
        try Data("[1,2,3]".utf8).write(to: folder.appendingPathComponent("b-array.json"))
        let event = SampleEvents.event(.restUsage, token: nil, at: Timestamp.now)
        try Data(event.jsonString.utf8).write(to: folder.appendingPathComponent("c-fine.json"))
        let stack = try await EmulatorStack(options: Repository.options())
        let records = await Replayer(stack: stack).replay([folder, folder.appendingPathComponent("missing.json")])
        #expect(
            records.map(\.file.lastPathComponentOfPath) == [
                "a-broken.json", "b-array.json", "c-fine.json", "missing.json",
            ])
        #expect(records[0].problem?.hasPrefix("not valid JSON") == true)
        #expect(records[1].problem?.contains("must be a JSON object") == true)
        #expect(records[2].ok)
        #expect(records[2].invocation?.statusCode == 401)
        #expect(records[3].problem == "no such file or folder")
    }

    @Test("--update writes expectations that then pass")
    func update() async throws {
        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let folder = scratch.appendingPathComponent("authorizer")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let when = Timestamp(timeIntervalSince1970: 1_800_000_000)
        let token = try DevelopmentTokens.mint(with: Repository.developmentKey, claims: .init(sub: "u"), at: when)
        try Data(SampleEvents.event(.tokenAuthorizer, token: token, at: when).jsonString.utf8)
            .write(to: folder.appendingPathComponent("allow.json"))
        try Data(SampleEvents.event(.tokenAuthorizer, token: "nope", at: when).jsonString.utf8)
            .write(to: folder.appendingPathComponent("deny.json"))
        let stack = try await EmulatorStack(options: Repository.options())
        let written = await Replayer(stack: stack, update: true).replay([folder])
        #expect(written.allSatisfy { $0.updated })
        let expected = try JSONParser.parse(
            Array(Data(contentsOf: folder.appendingPathComponent("deny.expected.json"))))
        #expect(expected == ["error": ["errorMessage": "Unauthorized", "errorType": "Unauthorized"]])
        let checked = await Replayer(stack: stack).replay([folder])
        #expect(checked.allSatisfy { $0.ok && $0.checked })
    }

    @Test("--json prints one object per event with the fields of docs/emulator.md")
    func jsonLines() async throws {
        let stack = try await EmulatorStack(options: Repository.options())
        let records = await Replayer(stack: stack).replay([Repository.events.appendingPathComponent("authorizer")])
        let allow = try #require(records.first)
        let object = ReplayReporter.json(for: allow)
        #expect(object["file"]?.string?.hasSuffix("01-token-free-user.json") == true)
        #expect(object["function"] == "authorizer")
        #expect(object["ok"] == true)
        #expect(object["response"]?["principalId"] == "a-free")
        let failed = try #require(records.first { $0.file.hasSuffix("06-token-missing.json") })
        #expect(
            ReplayReporter.json(for: failed)["error"] == ["errorMessage": "Unauthorized", "errorType": "Unauthorized"])
        #expect(ReplayReporter.json(for: failed)["statusCode"] == nil)
    }
}

extension String {
    var lastPathComponentOfPath: String { (self as NSString).lastPathComponent }
}
