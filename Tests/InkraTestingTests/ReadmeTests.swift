import Foundation
import Testing

/// The README's example and the DocC article's are the test in ReadmeExample.swift, which runs
/// beside these: a reader who pastes either pastes a test that passes.
@Suite("The documented example")
struct ReadmeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test("README.md shows ReadmeExample.swift verbatim, imports and all")
    func readme() throws {
        let example = try Self.read("Tests/InkraTestingTests/ReadmeExample.swift")
        let readme = try Self.read("README.md")
        #expect(readme.contains("```swift\n" + example + "```\n"), "README.md must show ReadmeExample.swift verbatim")
    }

    @Test("The DocC article shows ReadmeExample.swift's test verbatim")
    func article() throws {
        let example = try Self.read("Tests/InkraTestingTests/ReadmeExample.swift")
        let test = try #require(example.range(of: "@Test")).lowerBound
        let article = try Self.read("Sources/InkraTesting/InkraTesting.docc/TestingYourHandlers.md")
        #expect(article.contains("```swift\n" + example[test...] + "```\n"), "the article must show the test verbatim")
    }
}
