import EmulatorKit
import Foundation
import SingleTable
import Testing

/// The state file and its journal hold items in DynamoDB's attribute-value JSON, written and read
/// by the one codec the DynamoDB client uses; files written before (by `JSONEncoder`, slashes
/// escaped) still read.
@Suite("State files in DynamoDB's JSON")
struct StateFileFormatTests {
    static let item: Item = [
        "PK": .s("USER#a/b"), "SK": .s("USAGE#2027-01"), "interviewCount": .n(3), "flags": .ss(["x", "y"]),
        "blob": .b(Data([0, 1, 255])), "ok": .bool(true), "none": .null, "m": .m(["l": .l([.n(1), .s("é")])]),
    ]

    @Test("Items round-trip through a saved state file, written with sorted members and DynamoDB's type keys")
    func roundTrip() throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("state.json")
        let file = StateFile(url: url, tableName: "inkra-usage")
        try file.save([Self.item])
        #expect(try file.load() == [Self.item])
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.hasPrefix(#"{"format":"inkra-emulator-state","items":[{"PK":{"S":"USER#a/b"},"SK":"#))
        #expect(text.contains(#""interviewCount":{"N":"3"}"#))
        #expect(text.hasSuffix(#""table":"inkra-usage","version":1}"#))
    }

    @Test("A state file written by the earlier encoder (escaped slashes) loads the same items")
    func earlierFiles() throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("state.json")
        let earlier =
            #"{"format":"inkra-emulator-state","items":[{"PK":{"S":"USER#a\/b"},"SK":{"S":"USAGE#2027-01"},"#
            + #""n":{"N":"1.50"},"ns":{"NS":["2","1"]}}],"table":"inkra-usage","version":1}"#
        try Data(earlier.utf8).write(to: url)
        let items = try StateFile(url: url, tableName: "inkra-usage").load()
        #expect(
            items == [
                [
                    "PK": .s("USER#a/b"), "SK": .s("USAGE#2027-01"), "n": .n(try Number(parsing: "1.5")),
                    "ns": .ns([1, 2]),
                ]
            ])
    }

    @Test("An unknown attribute type in a state file is refused, naming the item and the type")
    func unknownType() throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("state.json")
        let contents =
            #"{"format":"inkra-emulator-state","version":1,"table":"inkra-usage","items":[{"PK":{"S":"a"}},"#
            + #"{"PK":{"Q":"x"}}]}"#
        try Data(contents.utf8).write(to: url)
        #expect {
            _ = try StateFile(url: url, tableName: "inkra-usage").load()
        } throws: { error in
            let message = (error as? EmulatorError)?.message ?? ""
            return message.contains("is corrupt") && message.contains(".items[1]")
                && message.contains("unknown attribute type Q")
        }
        #expect(try String(contentsOf: url, encoding: .utf8) == contents)
    }

    @Test("The journal writes a put's after-image and a deletion's key, and folds them back in order")
    func journalLines() throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = StateFile(url: folder.appendingPathComponent("state.json"), tableName: "inkra-usage")
        let journal = try file.openJournal()
        let key: Item = ["PK": .s("USER#a/b"), "SK": .s("USAGE#2027-01")]
        let other: Item = ["PK": .s("USER#c"), "SK": .s("PROFILE")]
        try journal.record([TableChange(key: key, item: Self.item), TableChange(key: other, item: other)])
        try journal.record([TableChange(key: other, item: nil)])
        let lines = try String(contentsOf: file.journalURL, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.last == #"{"changes":[{"key":{"PK":{"S":"USER#c"},"SK":{"S":"PROFILE"}}}]}"#)
        #expect(lines.first?.contains(#"{"item":{"PK":{"S":"USER#a/b"},"SK":{"S":"USAGE#2027-01"},"#) == true)
        #expect(try file.load() == [Self.item])
    }
}
