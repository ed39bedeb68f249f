import Foundation
import InkraHandlers
import Testing

@Suite("The package's version")
struct VersionTests {
    @Test("InkraVersion.current is a semantic version, and CHANGELOG.md names it")
    func version() throws {
        let parts = InkraVersion.current.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }, "\(parts)")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let changelog = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let released = changelog.contains("## [\(InkraVersion.current)]")
        let upcoming = changelog.contains("To be released as \(InkraVersion.current).")
        #expect(released || upcoming, "CHANGELOG.md has no section for \(InkraVersion.current)")
    }
}
