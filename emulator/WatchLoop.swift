import EmulatorKit
import EmulatorServer
import Foundation

/// `serve --watch` and `run-runtime --watch`: rebuilds the runtime when a watched file changes and
/// then takes the new build (``rebuilt``): `serve` swaps it in between invocations, keeping the
/// table, the pool and the clock; `run-runtime` replays its events again with it. A build that
/// fails keeps the last good runtime and prints the compiler's output.
struct WatchLoop: Sendable {
    let watcher: SourceWatcher
    /// The build command, run with `/bin/sh -c` in the current folder.
    let build: String
    /// What follows a good build; it throws when the new runtime cannot start.
    let rebuilt: @Sendable () async throws -> Void
    /// What the log says once ``rebuilt`` is done, after "built in N s; ".
    let done: String
    /// The console's feed, which shows the rebuild lines too (`serve`'s, when its console is on).
    let feed: ConsoleFeed?

    /// `serve`'s loop: a good build is swapped in between invocations.
    init(watcher: SourceWatcher, build: String, server: LocalServer) {
        self.init(
            watcher: watcher, build: build, done: "the next invocation runs the new build",
            feed: server.console?.feed
        ) { try await server.replaceRuntime() }
    }

    init(
        watcher: SourceWatcher, build: String, done: String, feed: ConsoleFeed? = nil,
        rebuilt: @escaping @Sendable () async throws -> Void
    ) {
        self.watcher = watcher
        self.build = build
        self.done = done
        self.feed = feed
        self.rebuilt = rebuilt
    }

    /// The build command for a runtime path: a release build for `.build/release/…`, else a debug one.
    static func defaultBuild(for runtime: String) -> String {
        runtime.contains("/release/") ? "swift build -c release --product bootstrap" : "swift build --product bootstrap"
    }

    /// Rebuilds and swaps until cancelled.
    func run() async {
        Output.err(
            "inkra-emulator: watching \(watcher.roots.map(\.relativePath).joined(separator: ", ")); a change runs `\(build)`"
        )
        while true {
            let changed: [String]
            do {
                changed = try await watcher.nextChange()
            } catch {
                return
            }
            let shown = changed.prefix(3).map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: ", ")
            let more = changed.count > 3 ? " and \(changed.count - 3) more" : ""
            Output.err("inkra-emulator: \(shown)\(more) changed; building (\(build))…")
            note(.started, "\(shown)\(more) changed; building")
            let started = ContinuousClock.now
            let (status, output) = await Self.runBuild(build)
            let took = (ContinuousClock.now - started).formatted(
                .units(allowed: [.seconds], fractionalPart: .show(length: 1)))
            guard status == 0 else {
                let lines = output.split(separator: "\n", omittingEmptySubsequences: false).suffix(60)
                Output.err(
                    "inkra-emulator: the build failed (exit \(status), \(took)); still serving the last good build:\n"
                        + lines.joined(separator: "\n"))
                note(
                    .failed, "the build failed (exit \(status), \(took)); still serving the last good build",
                    lines: Self.firstErrors(output))
                continue
            }
            do {
                try await rebuilt()
                Output.err("inkra-emulator: built in \(took); \(done)")
                note(.succeeded, "built in \(took); \(done)")
            } catch {
                Output.err("inkra-emulator: built in \(took), but the new runtime did not start: \(error)")
                note(.failed, "built in \(took), but the new runtime did not start: \(error)")
            }
        }
    }

    /// Shows a rebuild line in the console's feed, when the console is on.
    private func note(_ stage: ConsoleFeed.Rebuild.Stage, _ message: String, lines: [String] = []) {
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
}
