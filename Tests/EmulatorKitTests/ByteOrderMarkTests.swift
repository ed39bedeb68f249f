import EmulatorKit
import Foundation
import InkraJSON
import InkraTestSupport
import Testing

/// Editors on Windows (Notepad, PowerShell's `Out-File -Encoding utf8`) start a UTF-8 file with a
/// byte-order mark, EF BB BF. JSON texts carry none, but a parser may ignore one (RFC 8259 §8.1):
/// replay and invoke read such event files as the same JSON.
@Suite("Event files with a UTF-8 byte-order mark")
struct ByteOrderMarkTests {
    static let mark = Data([0xEF, 0xBB, 0xBF])
    static let event = Repository.events.appendingPathComponent("checkUsage/04-rest-cognito-authorizer.json")

    /// A copy of a recorded event (and its expectation) under `folder/checkUsage`, each file
    /// starting with the mark.
    static func markedCopy(in folder: URL) throws -> URL {
        let functionFolder = folder.appendingPathComponent("checkUsage")
        try FileManager.default.createDirectory(at: functionFolder, withIntermediateDirectories: true)
        let copy = functionFolder.appendingPathComponent("with-bom.json")
        try (mark + Data(contentsOf: event)).write(to: copy)
        let expectation = event.deletingPathExtension().appendingPathExtension("expected.json")
        try (mark + Data(contentsOf: expectation)).write(
            to: functionFolder.appendingPathComponent("with-bom.expected.json"))
        return copy
    }

    @Test("replay reads an event and its expectation that start with the mark")
    func replay() async throws {
        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        _ = try Self.markedCopy(in: scratch)
        let records = await Replayer(stack: try await EmulatorStack(options: Repository.options())).replay([scratch])
        let record = try #require(records.first)
        #expect(record.problem == nil)
        #expect(record.checked)
        #expect(record.ok, "\(record.mismatches)")
        #expect(record.invocation?.statusCode == 200)
    }

    @Test("invoke reads an event with the mark, from a file or standard input")
    func invoke() async throws {
        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let copy = try Self.markedCopy(in: scratch)
        let fromFile = try await runEmulator(["invoke", "checkUsage", "--event", copy.path])
        #expect(fromFile.status == 0, "\(fromFile.standardError)")
        #expect(try JSONParser.parse(fromFile.standardOutput)["statusCode"] == 200)

        let text = "\u{FEFF}" + String(decoding: try Data(contentsOf: Self.event), as: UTF8.self)
        let fromInput = try await runEmulator(["invoke", "checkUsage"], input: text)
        #expect(fromInput.status == 0, "\(fromInput.standardError)")
        #expect(fromInput.standardOutput == fromFile.standardOutput)
    }

    @Test("Only a leading mark is dropped: the same bytes elsewhere are not valid JSON")
    func onlyLeading() throws {
        #expect(Replayer.jsonBytes(of: Self.mark + Data("{}".utf8)) == Array("{}".utf8))
        #expect(Replayer.jsonBytes(of: Data("{}".utf8)) == Array("{}".utf8))
        let inside = Data("{".utf8) + Self.mark + Data("}".utf8)
        #expect(throws: (any Error).self) { try JSONParser.parse(Replayer.jsonBytes(of: inside)) }
    }
}
