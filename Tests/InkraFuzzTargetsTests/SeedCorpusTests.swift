import Foundation
import InkraFuzzTargets
import InkraTestSupport
import Testing

@Suite("The fuzz targets' seed corpus and kept crashes keep every invariant")
struct SeedCorpusTests {
    static func inputs(_ target: FuzzTarget) -> [URL] {
        var folders = [ChildProcess.repositoryRoot.appendingPathComponent("Fuzz/corpus/\(target.rawValue)")]
        if target == .json || target == .event {
            folders.append(ChildProcess.repositoryRoot.appendingPathComponent("events"))
        }
        return folders.flatMap { folder in
            (FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? [])
                .filter { !$0.hasDirectoryPath }
        }
    }

    @Test("Every seed runs through its target without breaking the invariant", arguments: FuzzTarget.allCases)
    func seeds(target: FuzzTarget) async throws {
        let files = Self.inputs(target)
        #expect(files.count >= 5, "the \(target.rawValue) corpus is missing")
        for file in files {
            do {
                try await target.run(Array(try Data(contentsOf: file)))
            } catch {
                Issue.record("\(file.lastPathComponent): \(error)")
            }
        }
    }

    @Test("A refused write leaves the item as it was; a condition that holds writes")
    func expressionAtomicity() async throws {
        // The invariant is checked against the table after the write: these inputs exercise both paths.
        try await FuzzTarget.expression.run(Array("ADD #n :one\0#n < :limit".utf8))
        try await FuzzTarget.expression.run(Array("ADD #n :one\0#n > :limit".utf8))
        try await FuzzTarget.expression.run(Array("SET #h[7] = :zero, #h[7] = :one\0".utf8))
    }
}
