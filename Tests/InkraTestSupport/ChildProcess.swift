import Dispatch
import Foundation
import Synchronization

/// What a child process printed, and how it ended.
package struct ProcessResult: Sendable {
    package var status: Int32
    package var standardOutput: String
    package var standardError: String
}

/// Runs executables built by this package, as a user would, without blocking Swift concurrency.
///
/// Spawned binaries often talk back to a server that lives in the test process (a Runtime API,
/// an HTTP stub). Waiting for them on a cooperative thread would starve that server on a small
/// machine, so the waiting, and the draining of both pipes, happen on Dispatch threads.
package enum ChildProcess {
    /// Runs blocking work (a pipe read to its end, a wait for a child's exit) on a thread of its
    /// own. Never on Dispatch's global queues: Swift's tasks share their threads, and a run of
    /// tests that each wait on children there used them all up, stalling every async test of the
    /// process (a local Runtime API that did not hand out its invocation for 30 s).
    static func blocking(_ work: @escaping @Sendable () -> Void) {
        Thread.detachNewThread(work)
    }

    /// The repository's root folder.
    package static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A product of this package (`bootstrap`, `inkra-emulator`) from the folder of the test bundle.
    package static func built(_ name: String) -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return repositoryRoot.appendingPathComponent(".build/debug/\(name)")
    }

    /// Runs `executable` to completion; standard input gets `input` (or nothing) and is closed.
    package static func run(
        _ executable: URL,
        _ arguments: [String],
        environment: [String: String]? = nil,
        input: String? = nil,
        directory: URL = repositoryRoot
    ) async throws -> ProcessResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.currentDirectoryURL = directory
        let output = Pipe()
        let errors = Pipe()
        let standardInput = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = standardInput
        try process.run()
        return await withCheckedContinuation { continuation in
            ChildProcess.blocking {
                let drained = DispatchGroup()
                nonisolated(unsafe) var outData = Data()
                nonisolated(unsafe) var errData = Data()
                drained.enter()
                ChildProcess.blocking {
                    outData = output.fileHandleForReading.readDataToEndOfFile()
                    drained.leave()
                }
                drained.enter()
                ChildProcess.blocking {
                    errData = errors.fileHandleForReading.readDataToEndOfFile()
                    drained.leave()
                }
                // A child that ends without reading its input closes the pipe: that is its answer, not a crash.
                if let input { try? standardInput.fileHandleForWriting.write(contentsOf: Data(input.utf8)) }
                try? standardInput.fileHandleForWriting.close()
                drained.wait()
                process.waitUntilExit()
                continuation.resume(
                    returning: ProcessResult(
                        status: process.terminationStatus,
                        standardOutput: String(decoding: outData, as: UTF8.self),
                        standardError: String(decoding: errData, as: UTF8.self)))
            }
        }
    }

    /// Starts `executable` in `directory` with its standard output on a pipe (returned), and its
    /// standard error on the same pipe or discarded.
    static func started(
        _ executable: URL, _ arguments: [String], directory: URL, includingStandardError: Bool = false,
        environment: [String: String]? = nil
    ) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = includingStandardError ? output : FileHandle.nullDevice
        try process.run()
        return (process, output)
    }

    /// Runs `executable` and kills it with SIGKILL once it has printed `lines` lines on standard
    /// output (or lets it end, if it ends first).
    /// - Returns: the lines it printed, and its status (minus the signal when one ended it).
    package static func killAfter(
        lines: Int, _ executable: URL, _ arguments: [String], directory: URL = repositoryRoot
    ) async throws -> (lines: [String], status: Int32) {
        let (process, output) = try started(executable, arguments, directory: directory)
        return await withCheckedContinuation { continuation in
            ChildProcess.blocking {
                var splitter = LineSplitter()
                var printed: [String] = []
                var killed = false
                while true {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    printed += splitter.lines(adding: chunk)
                    if !killed && printed.count >= lines {
                        kill(process.processIdentifier, SIGKILL)
                        killed = true
                    }
                }
                process.waitUntilExit()
                let status =
                    process.terminationReason == .uncaughtSignal
                    ? -process.terminationStatus : process.terminationStatus
                continuation.resume(returning: (printed, status))
            }
        }
    }
}

/// A long-running child (a server) whose standard output is collected line by line while it runs.
package final class RunningChild: Sendable {
    private let process: Process
    private let output = Output()

    private final class Output: Sendable {
        let state = Mutex(Lines())
    }

    private struct Lines {
        var printed: [String] = []
        var ended = false
        var waiters: [(needle: String, continuation: CheckedContinuation<String?, Never>)] = []
    }

    /// Starts `executable` (with `environment`, else this process's); its standard error is
    /// discarded, or collected with its standard output.
    package init(
        _ executable: URL, _ arguments: [String], directory: URL = ChildProcess.repositoryRoot,
        includingStandardError: Bool = false, environment: [String: String]? = nil
    ) throws {
        let pipe: Pipe
        (process, pipe) = try ChildProcess.started(
            executable, arguments, directory: directory, includingStandardError: includingStandardError,
            environment: environment)
        let reader = pipe.fileHandleForReading
        ChildProcess.blocking { [output] in
            var splitter = LineSplitter()
            while true {
                let chunk = reader.availableData
                let complete = splitter.lines(adding: chunk)
                let ready = output.state.withLock { lines in
                    lines.printed += complete
                    lines.ended = chunk.isEmpty
                    var ready: [(CheckedContinuation<String?, Never>, String?)] = []
                    lines.waiters.removeAll { waiter in
                        if let line = lines.printed.first(where: { $0.contains(waiter.needle) }) {
                            ready.append((waiter.continuation, line))
                            return true
                        }
                        if lines.ended { ready.append((waiter.continuation, nil)) }
                        return lines.ended
                    }
                    return ready
                }
                for (continuation, line) in ready { continuation.resume(returning: line) }
                if chunk.isEmpty { return }
            }
        }
    }

    /// The lines printed so far.
    package var lines: [String] { output.state.withLock { $0.printed } }

    /// The child's process id.
    package var processIdentifier: Int32 { process.processIdentifier }

    /// The first printed line containing `needle`, once it comes; `nil` when the output ends without it.
    package func line(containing needle: String) async -> String? {
        await withCheckedContinuation { continuation in
            let answer: String?? = output.state.withLock { lines in
                if let line = lines.printed.first(where: { $0.contains(needle) }) { return .some(line) }
                if lines.ended { return .some(nil) }
                lines.waiters.append((needle, continuation))
                return .none
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// Sends `signal` and waits for the child to end: its exit status, or minus the signal that ended it.
    package func stop(with signal: Int32 = SIGTERM) async -> Int32 {
        kill(process.processIdentifier, signal)
        return await withCheckedContinuation { continuation in
            ChildProcess.blocking { [process] in
                process.waitUntilExit()
                continuation.resume(
                    returning: process.terminationReason == .uncaughtSignal
                        ? -process.terminationStatus : process.terminationStatus)
            }
        }
    }
}

/// Cuts a stream of output into its complete lines.
struct LineSplitter {
    private var buffer = Data()

    /// The lines `chunk` completes, without their line ends.
    mutating func lines(adding chunk: Data) -> [String] {
        buffer.append(chunk)
        var lines: [String] = []
        while let newline = buffer.firstIndex(of: 0x0A) {
            lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
            buffer.removeSubrange(buffer.startIndex...newline)
        }
        return lines
    }
}
