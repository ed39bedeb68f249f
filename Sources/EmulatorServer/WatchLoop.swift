import EmulatorKit
import Foundation
import InkraTime

/// `serve --watch` and `run-runtime --watch`: rebuilds the runtime when a watched file changes and
/// then takes the new build (``rebuilt``): `serve` swaps it in between invocations, keeping the
/// table, the pool and the clock; `run-runtime` replays its events again with it. A build that
/// fails keeps the last good runtime and prints the compiler's output.
package struct WatchLoop: Sendable {
    /// The files and folders watched (hidden ones, such as `.build`, skipped).
    let roots: [URL]
    /// The build command, run with `/bin/sh -c` in the current folder.
    let build: String
    /// What the log says once ``rebuilt`` is done, after "built in N s; ".
    let done: String
    /// The console's feed, which shows the rebuild lines too (`serve`'s, when its console is on).
    let feed: ConsoleFeed?
    /// What follows a good build; it throws when the new runtime cannot start.
    let rebuilt: @Sendable () async throws -> Void
    /// How often the files are looked at.
    var interval: Duration = .milliseconds(500)

    /// `serve`'s loop: a good build is swapped in between invocations.
    package init(roots: [URL], build: String, server: LocalServer) {
        self.init(
            roots: roots, build: build, done: "the next invocation runs the new build", feed: server.console?.feed
        ) { try await server.replaceRuntime() }
    }

    /// A loop that calls `rebuilt` after each good build, and says `done`.
    package init(
        roots: [URL], build: String, done: String, feed: ConsoleFeed? = nil,
        rebuilt: @escaping @Sendable () async throws -> Void
    ) {
        (self.roots, self.build, self.done, self.feed, self.rebuilt) = (roots, build, done, feed, rebuilt)
    }

    /// Rebuilds and swaps until cancelled.
    package func run() async {
        let watched = roots.map(\.relativePath).joined(separator: ", ")
        LocalServer.note("inkra-emulator: watching \(watched); a change runs `\(build)`")
        // Cancelled: the only error the wait throws.
        while let changed = try? await nextChange() {
            let shown = changed.prefix(3).map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: ", ")
            let more = changed.count > 3 ? " and \(changed.count - 3) more" : ""
            report(.started, "\(shown)\(more) changed; building", detail: " (\(build))…")
            let started = ContinuousClock.now
            let (status, output) = await Self.runBuild(build)
            let took = (ContinuousClock.now - started).formatted(
                .units(allowed: [.seconds], fractionalPart: .show(length: 1)))
            guard status == 0 else {
                let lines = output.split(separator: "\n", omittingEmptySubsequences: false).suffix(60)
                report(
                    .failed, "the build failed (exit \(status), \(took)); still serving the last good build",
                    detail: ":\n" + lines.joined(separator: "\n"), lines: Self.firstErrors(output))
                continue
            }
            do {
                try await rebuilt()
                report(.succeeded, "built in \(took); \(done)")
            } catch {
                report(.failed, "built in \(took), but the new runtime did not start: \(error)")
            }
        }
    }

    /// Says `message` (and `detail`) on standard error, and `message` (and `lines`) in the console's
    /// feed when the console is on.
    private func report(
        _ stage: ConsoleFeed.Rebuild.Stage, _ message: String, detail: String = "", lines: [String] = []
    ) {
        LocalServer.note("inkra-emulator: \(message)\(detail)")
        feed?.note(ConsoleFeed.Rebuild(stage: stage, message: message, lines: lines))
    }

    /// The compiler's first lines: from its first `error:` line on, at most 12; else the last 12.
    static func firstErrors(_ output: String) -> [String] {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard let first = lines.firstIndex(where: { $0.contains("error:") }) else { return Array(lines.suffix(12)) }
        return Array(lines[first...].prefix(12))
    }

    /// Runs the build, its standard output and error together.
    static func runBuild(_ command: String) async -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        return await withCheckedContinuation { continuation in
            // The build's output is read to its end on a thread of its own, never on Swift's pool.
            Thread.detachNewThread {
                do {
                    try process.run()
                } catch {
                    continuation.resume(returning: (127, "cannot run /bin/sh -c \(command): \(error)"))
                    return
                }
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: data, as: UTF8.self)))
            }
        }
    }

    /// A file's size and modification time.
    struct Stamp: Hashable {
        var size: Int
        var modified: Date
    }

    /// Every file under the roots, with its stamp: no file-system events, so it reads the same on
    /// Linux and macOS.
    func snapshot() -> [String: Stamp] {
        var files: [String: Stamp] = [:]
        let keys: [URLResourceKey] = [.isRegularFileKey, .fileSizeKey, .contentModificationDateKey]
        func add(_ url: URL) {
            guard let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { return }
            files[url.path] = Stamp(
                size: values.fileSize ?? 0, modified: values.contentModificationDate ?? .distantPast)
        }
        for root in roots {
            add(root)
            guard
                let enumerator = FileManager.default.enumerator(
                    at: root, includingPropertiesForKeys: keys, options: [.skipsHiddenFiles])
            else { continue }
            for case let url as URL in enumerator { add(url) }
        }
        return files
    }

    /// Waits until a file under the roots is added, changed or removed, and then until nothing more
    /// changes for one interval (an editor writes a file in several steps; a checkout many files).
    /// - Returns: the paths that changed, sorted.
    /// - Throws: `CancellationError` when the task is cancelled.
    func nextChange() async throws -> [String] {
        let before = snapshot()
        var current = before
        while current == before {
            try await Task.sleep(for: interval)
            current = snapshot()
        }
        while true {
            try await Task.sleep(for: interval)
            let settled = snapshot()
            if settled == current { break }
            current = settled
        }
        return Set(before.keys).union(current.keys).filter { before[$0] != current[$0] }.sorted()
    }
}
