import Foundation
import Testing

@testable import EmulatorServer

/// `--watch`'s loop in process (the spawned `serve --watch` is ServeWatchTests'): which files it
/// reports changed, and which lines of a failed build the console shows.
@Suite("WatchLoop: the files that changed, the compiler's first errors")
struct WatchLoopTests {
    static func loop(watching root: URL) -> WatchLoop {
        var loop = WatchLoop(roots: [root], build: "true", done: "done") {}
        loop.interval = .milliseconds(200)
        return loop
    }

    @Test("A file added and one changed are reported, sorted; hidden folders are not watched")
    func changes() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent(".build"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("one".utf8).write(to: root.appendingPathComponent("b.swift"))
        let loop = Self.loop(watching: root)
        // Written again and again, each time longer: whenever the loop takes its first look, both
        // files change after it.
        let writer = Task {
            for round in 1...200 {
                let text = Data(String(repeating: "x", count: round).utf8)
                for name in [".build/out.o", "b.swift", "a.swift"] {
                    try text.write(to: root.appendingPathComponent(name))
                }
                try await Task.sleep(for: .seconds(1))
            }
        }
        defer { writer.cancel() }
        let changed = try await loop.nextChange()
        #expect(changed == ["a.swift", "b.swift"].map { root.appendingPathComponent($0).path })
    }

    @Test("A failed build shows at most 12 lines from its first error, else its last 12")
    func firstErrors() {
        let output = (1...5).map { "compiling \($0)" } + ["x.swift:1:1: error: oops"] + (1...20).map { "note \($0)" }
        let shown = WatchLoop.firstErrors(output.joined(separator: "\n"))
        #expect(shown.first == "x.swift:1:1: error: oops")
        #expect(shown.count == 12)
        let quiet = WatchLoop.firstErrors((1...20).map { "line \($0)" }.joined(separator: "\n"))
        #expect(quiet == (9...20).map { "line \($0)" })
    }
}
