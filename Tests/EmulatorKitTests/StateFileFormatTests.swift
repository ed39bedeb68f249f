import EmulatorKit
import Foundation
import InkraTime
import LocalUserPool
import SingleTable
import Testing

/// The state file and its journal hold items in DynamoDB's attribute-value JSON, written and read
/// by the one codec the DynamoDB client uses; files written before (by `JSONEncoder`, slashes
/// escaped) still read.
@Suite("State files in DynamoDB's JSON")
struct StateFileFormatTests {
    static let item: Item = [
        "PK": .s("USER#a/b"), "SK": .s("USAGE#2027-01"), "interviewCount": .n(3), "flags": .ss(["x", "y"]),
        "blob": .b([0, 1, 255]), "ok": .bool(true), "none": .null, "m": .m(["l": .l([.n(1), .s("é")])]),
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

    /// A pool section as Foundation's encoder wrote it before the pool moved to the package's JSON
    /// codec: sorted members, dates in seconds since 2001, slashes escaped, a set as an array.
    static let earlierPool =
        #"{"format":"inkra-emulator-state","items":[],"table":"inkra-usage","userPool":{"#
        + #""accessTokens":{"abc":{"authTime":786297600,"clientID":"app","expires":786301200.5,"#
        + #""originJti":"j1","username":"u-1"}},"poolID":"us-east-1_InkraLocal","refreshTokens":{},"#
        + #""revokedTokens":["def"],"users":[{"attributes":{"email":"lee@example.com"},"created":786297600,"#
        + #""enabled":false,"groups":["premium_tier"],"modified":786297601,"#
        + #""password":{"hash":"aGFz\/aA==","rounds":210000,"salt":"c2Fs\/dA=="},"#
        + #""pendingCode":{"code":"123456","expires":786298500,"purpose":"resetPassword"},"#
        + #""status":"CONFIRMED","sub":"s-1","username":"u-1"}]},"version":1}"#

    @Test("A user pool saved by the earlier encoder loads the same users, tokens and revocations")
    func earlierPool() throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("state.json")
        try Data(Self.earlierPool.utf8).write(to: url)
        let file = StateFile(url: url, tableName: "inkra-usage")
        let pool = try #require(try file.loadUserPool())
        #expect(pool.poolID == "us-east-1_InkraLocal")
        let user = try #require(pool.users.first)
        #expect(user.email == "lee@example.com" && user.sub == "s-1" && user.status == .confirmed)
        #expect(user.enabled == false && user.groups == ["premium_tier"])
        #expect(user.created == Timestamp(timeIntervalSince1970: 786_297_600 + 978_307_200))
        #expect(user.modified == Timestamp(timeIntervalSince1970: 786_297_601 + 978_307_200))
        // Saved again and read back: the same pool, in the same shapes.
        try file.save([], userPool: pool)
        #expect(try file.loadUserPool() == pool)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains(#""expires":786301200.5"#) && text.contains(#""revokedTokens":["def"]"#))
        #expect(text.contains(#""password":{"hash":"aGFz/aA==","rounds":210000,"salt":"c2Fs/dA=="}"#))
    }

    @Test("A pool member that is not as written is refused, naming its path; the file is left as it was")
    func corruptPool() throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("state.json")
        let contents = Self.earlierPool.replacingOccurrences(of: #""CONFIRMED""#, with: #""ACTIVE""#)
        try Data(contents.utf8).write(to: url)
        let file = StateFile(url: url, tableName: "inkra-usage")
        for load in [{ _ = try file.loadUserPool() }, { _ = try file.load() }] {
            #expect {
                try load()
            } throws: { error in
                let message = (error as? EmulatorError)?.message ?? ""
                return message.contains("corrupt") && message.contains(".userPool.users[0].status")
                    && message.contains(#"unknown value "ACTIVE""#)
            }
        }
        #expect(try String(contentsOf: url, encoding: .utf8) == contents)
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
