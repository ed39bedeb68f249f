import Dispatch
import Foundation

/// What a child process printed, and how it ended.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
}

/// Runs executables built by this package, as a user would, without blocking Swift concurrency.
///
/// Spawned binaries often talk back to a server that lives in the test process (a Runtime API,
/// an HTTP stub). Waiting for them on a cooperative thread would starve that server on a small
/// machine, so the waiting, and the draining of both pipes, happen on Dispatch threads.
public enum ChildProcess {
    /// The repository's root folder.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A product of this package (`bootstrap`, `inkra-emulator`) from the folder of the test bundle.
    public static func built(_ name: String) -> URL {
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
    public static func run(
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
            DispatchQueue.global().async {
                let drained = DispatchGroup()
                nonisolated(unsafe) var outData = Data()
                nonisolated(unsafe) var errData = Data()
                DispatchQueue.global().async(group: drained) {
                    outData = output.fileHandleForReading.readDataToEndOfFile()
                }
                DispatchQueue.global().async(group: drained) {
                    errData = errors.fileHandleForReading.readDataToEndOfFile()
                }
                if let input { standardInput.fileHandleForWriting.write(Data(input.utf8)) }
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

    /// Runs `executable` and kills it with SIGKILL once it has printed `lines` lines on standard
    /// output (or lets it end, if it ends first).
    /// - Returns: the lines it printed, and its status (minus the signal when one ended it).
    public static func killAfter(
        lines: Int, _ executable: URL, _ arguments: [String], directory: URL = repositoryRoot
    ) async throws -> (lines: [String], status: Int32) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var buffer = Data()
                var printed: [String] = []
                var killed = false
                while true {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    buffer.append(chunk)
                    while let newline = buffer.firstIndex(of: 0x0A) {
                        printed.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                        buffer.removeSubrange(buffer.startIndex...newline)
                    }
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
