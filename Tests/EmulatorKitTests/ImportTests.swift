import DynamoDBTable
import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraUsage
import SingleTable
import Testing

/// `inkra-emulator import` and `--state-from-scan`: each log source format, duplicates, broken and
/// cut lines, an empty source; scans of one and several pages, a foreign scan refused; and a
/// pseudonymized import that replays as the original did.
@Suite("Import of recorded traffic")
struct ImportTests {
    /// What the recorder keeps, keyed as a runtime outside Lambda keys it.
    static let redaction = RecordingRedaction(secret: .development)

    /// The scenario's generateQuestions events, each run through the chain on one stack (seeded
    /// from `scan` first, when given) and recorded as `bootstrap` records them.
    static func record(seed scan: TableScan? = nil) async throws -> [Recording] {
        let stack = try await EmulatorStack(options: Repository.options())
        if let scan { try await scan.seed(stack.table, tableName: stack.options.tableName) }
        let folder = Repository.root.appendingPathComponent("events/free-user-limits")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(".json") && !$0.hasSuffix(".expected.json")
        }.sorted()
        var recordings: [Recording] = []
        for (index, name) in names.enumerated() {
            let event = try JSONParser.parse(Array(try Data(contentsOf: folder.appendingPathComponent(name))))
            guard event["x-inkra-function"]?.string == "generateQuestions" else { continue }
            let (cleaned, time) = Replayer.prepare(event)
            let box = Sent()
            let chain = stack.gateway.running { _, injected, _ in
                await box.keep(injected)
                return nil
            }
            let invocation = await chain.invoke(.generateQuestions, event: cleaned, at: time)
            guard case .success(let result) = invocation.outcome, let sent = await box.event else { continue }
            recordings.append(
                Recording(
                    function: "generateQuestions", requestID: "req-\(index)",
                    epochMilliseconds: Recording.milliseconds(of: try #require(time)),
                    event: redaction.event(sent), response: RecordingRedaction.response(result)))
        }
        return recordings
    }

    static func text(_ recordings: [Recording], json: Bool = false) -> String {
        recordings.flatMap { RecordingLines.lines(for: $0, json: json, timestamp: "2026-11-17T10:00:00.000Z") }
            .joined(separator: "\n") + "\n"
    }

    static func collect(
        _ text: String, name: String = "capture.log", gzip: Bool = false
    ) async throws -> RecordingCollector {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)-\(name)")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(text.utf8).write(to: url)
        var source = url
        if gzip {
            let zipped = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["gzip", "-kf", url.path])
            #expect(zipped.status == 0, "\(zipped.standardError)")
            source = url.appendingPathExtension("gz")
        }
        defer { try? FileManager.default.removeItem(at: url.appendingPathExtension("gz")) }
        var collector = RecordingCollector()
        for message in try LogSource.messages(of: source, named: name) { collector.add(message) }
        return collector
    }

    @Test("A runtime capture, aws logs JSON in two pages and a gzip'd S3 export give the same recordings")
    func formats() async throws {
        let recordings = try await Self.record()
        #expect(recordings.count >= 5)
        let plain = "START RequestId: x\n" + Self.text(recordings) + "END RequestId: x\n"
        let lines = Self.text(recordings, json: true).split(separator: "\n").map(String.init)
        func page(_ part: ArraySlice<String>) -> String {
            JSONValue.object([
                "events": .array(part.map { ["logStreamName": "s", "timestamp": 1, "message": .string($0)] }),
                "searchedLogStreams": [],
            ]).prettyJSONString
        }
        let pages = page(lines[..<2]) + "\n" + page(lines[2...])
        let export = lines.map { "2026-11-17T10:00:00.000Z \($0)" }.joined(separator: "\n") + "\n"
        for (collector, skipped) in [
            (try await Self.collect(plain), 2), (try await Self.collect(pages, name: "logs.json"), 0),
            (try await Self.collect(export, name: "000000.gz", gzip: true), 0),
        ] {
            #expect(collector.recordings == recordings)
            #expect(collector.skipped == skipped)
            #expect(collector.broken.isEmpty && collector.cut.isEmpty)
        }
    }

    @Test("Duplicates are kept once, a broken line is named by source and line, a cut recording is reported")
    func unhappy() async throws {
        let recordings = try await Self.record()
        let good = Self.text(Array(recordings.prefix(2)))
        let split = RecordingLines.lines(for: recordings[2], json: false, timestamp: "t", maximum: 600)
        let text = good + good + "INKRA_RECORDING r-x 1/1 {not json\n" + split.dropLast().joined(separator: "\n")
        let collector = try await Self.collect(text, name: "broken.log")
        #expect(collector.recordings == Array(recordings.prefix(2)))
        #expect(collector.duplicates == 2)
        #expect(
            collector.broken.map(\.description) == ["broken.log:5: recording r-x is not a recording's JSON (version 1)"]
        )
        #expect(collector.cut.map(\.requestID) == [recordings[2].requestID])
        let empty = try await Self.collect("", name: "empty.log")
        #expect(empty.found == 0 && empty.recordings.isEmpty)
    }

    static func scanText(_ items: [Item], pages: Int) -> String {
        let wire = items.map { Wire.item($0) }
        let size = max(1, (wire.count + pages - 1) / pages)
        return stride(from: 0, to: wire.count, by: size).map { start in
            JSONValue.object(["Items": .array(Array(wire[start..<min(wire.count, start + size)])), "Count": 1])
                .prettyJSONString
        }.joined(separator: "\n")
    }

    @Test("A scan of one or several pages seeds the table with its items; a foreign scan is refused naming PK and SK")
    func scans() async throws {
        let items: [Item] = (1...5).map {
            ["PK": .s("USER#u\($0)"), "SK": .s("USAGE#2026-11"), "count": .n(Number($0))]
        }
        for pages in [1, 3] {
            let scan = try TableScan(text: Self.scanText(items, pages: pages), name: "scan.json")
            let stack = try await EmulatorStack(options: Repository.options())
            try await scan.seed(stack.table, tableName: stack.options.tableName)
            let stored = try await stack.table.scan(ScanRequest(tableName: stack.options.tableName)).items
            #expect(Set(stored.compactMap { $0["PK"]?.stringValue }) == Set((1...5).map { "USER#u\($0)" }))
        }
        #expect(throws: EmulatorError.self) {
            try TableScan(text: #"{"Items":[{"id":{"S":"1"},"name":{"S":"x"}}]}"#, name: "orders.json")
        }
        do {
            _ = try TableScan(text: #"{"Items":[{"id":{"S":"1"}}]}"#, name: "orders.json")
        } catch {
            #expect(error.message.contains("lacks the string key PK and SK"))
        }
        #expect(throws: EmulatorError.self) { try TableScan(text: #"{"Count": 0}"#, name: "x.json") }
    }

    @Test(
        "A scan, written by import --scan as the local stack reads it (and further pseudonymized), seeds a replay of the recordings that goes as the original did, with no user id left"
    )
    func pseudonymized() async throws {
        // The stack's table: its partitions are named by the user ids' pseudonyms, the ones the
        // recordings hold.
        let before = try await EmulatorStack(options: Repository.options())
        try await before.table.putItem(
            PutItemRequest(
                tableName: before.options.tableName,
                item: [
                    "PK": .s(userPartition("scenario-free-user")), "SK": .s("USAGE#2026-10"), "interviewCount": .n(4),
                ]))
        let items = try await before.table.scan(ScanRequest(tableName: before.options.tableName)).items
        let scan = try TableScan(text: Self.scanText(items, pages: 1), name: "scan.json")
        let recordings = try await Self.record(seed: scan)
        let pseudonymizer = Pseudonymizer(key: "team-secret")
        #expect(!scan.json.jsonString.contains("scenario-free-user"), "the table holds the user id")

        for pseudonymizer in [nil, pseudonymizer] {
            let writer = ImportWriter(directory: Self.scratch(), pseudonymizer: pseudonymizer)
            var seed = scan
            seed.wireItems = seed.wireItems.map { Pseudonymizer.localItem($0, pseudonymizer: pseudonymizer) }
            for recording in recordings { try writer.write(recording) }
            let stack = try await EmulatorStack(options: Repository.options())
            try await seed.seed(stack.table, tableName: stack.options.tableName)
            let records = await Replayer(stack: stack).replay([writer.directory])
            #expect(records.count == recordings.count)
            #expect(records.allSatisfy { $0.ok && $0.checked }, "\(records.flatMap(\.mismatches))")
            // The recordings hold no user id, pseudonymized further or not.
            let files = try FileManager.default.subpathsOfDirectory(atPath: writer.directory.path)
            for file in files where file.hasSuffix(".json") {
                let text = try String(contentsOf: writer.directory.appendingPathComponent(file), encoding: .utf8)
                #expect(!text.contains("scenario-free-user"), "\(file) holds the user id")
            }
            try? FileManager.default.removeItem(at: writer.directory)
        }
    }

    static func scratch() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("import-out-\(UUID().uuidString)")
    }
}

/// The event the chain handed to the function (with the authorizer's context injected).
private actor Sent {
    var event: JSONValue?
    func keep(_ event: JSONValue) { self.event = event }
}
