import Foundation
import Testing

@testable import EmulatorKit

@Suite("A folder's order keys, held in one buffer")
struct OrderKeysTests {
    /// The order replay promises: the keys' UTF-8 bytes, a key before any longer key it begins.
    static func expected(_ keys: [String]) -> [String] {
        keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    static func sorted(_ keys: [String]) -> [String] {
        var held = OrderKeys()
        for key in keys {
            let added = held.append(key)
            #expect(added)
        }
        held.sort()
        return (0..<held.count).map { held[$0] }
    }

    @Test("Prefixes, separators, NULs, non-ASCII and equal keys sort as their bytes do")
    func awkwardKeys() {
        let keys = [
            "a/x.json", "a-b/y.json", "a.json", "a", "", "b/a.json", "a/x.json",
            "2026-11-25T10-00-00.000Z-r1.json\u{0}checkUsage/2026-11-25T10-00-00.000Z-r1.json",
            "2026-11-25T10-00-00.000Z-r1.json\u{0}authorizer/2026-11-25T10-00-00.000Z-r1.json",
            "é.json", "e\u{301}.json", "z.json", "Z.json", "ü/ö.json",
        ]
        #expect(Self.sorted(keys) == Self.expected(keys))
    }

    @Test("Ten thousand generated keys sort as the same keys as strings do")
    func generatedKeys() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let alphabet = Array("ab-/.0129Tz\u{0}é")
        let keys = (0..<10_000).map { _ in
            String((0..<Int(next() % 12)).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] })
        }
        #expect(Self.sorted(keys) == Self.expected(keys))
    }

    @Test("A folder replays its files in that order, recorded events by their instant")
    func folderOrder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-order-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = [
            "checkUsage/2026-11-25T10-00-02.000Z-b.json", "generateQuestions/2026-11-25T10-00-01.000Z-a.json",
            "a-b/1.json", "a/2.json", "a.json",
        ]
        for file in files {
            let url = folder.appendingPathComponent(file)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: url)
        }
        let keys = try #require(EventSource.orderKeys(in: folder.path))
        #expect(
            (0..<keys.count).map { EventSource.relativePath(ofKey: keys[$0]) } == [
                "generateQuestions/2026-11-25T10-00-01.000Z-a.json", "checkUsage/2026-11-25T10-00-02.000Z-b.json",
                "a-b/1.json", "a.json", "a/2.json",
            ])
    }
}
