import Foundation
import InkraJSON
import Testing

@Suite("FileBytes: a whole file, or the system's reason it cannot be read")
struct FileBytesTests {
    @Test("Reads a file of several chunks whole, and an empty one as nothing")
    func readsWhole() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "inkra-filebytes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let file = folder.appendingPathComponent("big.bin")
        try Data(bytes).write(to: file)
        #expect(try FileBytes.read(atPath: file.path) == bytes)
        let empty = folder.appendingPathComponent("empty.json")
        try Data().write(to: empty)
        #expect(try FileBytes.read(atPath: empty.path) == [])
    }

    @Test("A missing file and a folder fail with the path and the system's reason")
    func failures() throws {
        #expect {
            try FileBytes.read(atPath: "/nonexistent/limits.json")
        } throws: { error in
            "\(error)" == "/nonexistent/limits.json: No such file or directory"
        }
        #expect {
            try FileBytes.read(atPath: "/")
        } throws: { error in
            "\(error)" == "/: Is a directory"
        }
    }

    @Test("Finds a part in bytes and in a string's UTF-8, as the standard library's firstRange(of:) does")
    func firstRangeOfPart() {
        let text = "2026-03-10T10:00:00Z abc INFO inkra-recording r-1 1/2 {}"
        for part in ["inkra-recording ", "2026", "{}", "INFO inkra", "nowhere", "}}", "inkra-recordings"] {
            let ours = text.utf8.firstRange(ofPart: part.utf8)
            let theirs = text.utf8.firstRange(of: part.utf8)
            #expect(ours == theirs, "\(part)")
        }
        #expect([1, 2, 1, 2, 3].firstRange(ofPart: [1, 2, 3]) == 2..<5)
        #expect([1, 2].firstRange(ofPart: [2, 3]) == nil)
        #expect([1, 2].firstRange(ofPart: []) == nil)
    }
}
