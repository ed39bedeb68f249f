import Foundation
import InkraCrypto
import Testing

@Suite("RandomUUID: version-4 UUIDs in their text form, lower case")
struct RandomUUIDTests {
    @Test("Each is a UUID Foundation reads back, of version 4 and RFC 4122's variant, and none repeats")
    func form() {
        var seen = Set<String>()
        for _ in 0..<1000 {
            let text = RandomUUID.string()
            let parsed = UUID(uuidString: text)
            #expect(parsed?.uuidString.lowercased() == text, "\(text)")
            let bytes = Array(text.utf8)
            #expect(bytes.count == 36 && bytes[14] == UInt8(ascii: "4"), "\(text)")
            #expect("89ab".utf8.contains(bytes[19]), "\(text)")
            seen.insert(text)
        }
        #expect(seen.count == 1000)
    }
}
