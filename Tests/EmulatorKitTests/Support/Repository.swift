import EmulatorKit
import Foundation

/// Paths in the repository, and the emulator binary the test run built.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let events = root.appendingPathComponent("events")
    static let developmentKeys = root.appendingPathComponent("emulator/dev-keys")

    static let developmentKey: DevelopmentKey = {
        do { return try DevelopmentKey(directory: developmentKeys) } catch { fatalError("\(error)") }
    }()

    /// Options that trust the development key, as the command line's defaults do.
    static func options(state: URL? = nil, now: Date? = nil) -> EmulatorOptions {
        var options = EmulatorOptions()
        options.developmentKey = developmentKey
        options.stateFile = state
        options.now = now
        return options
    }

    /// The `inkra-emulator` executable beside the test bundle.
    static var emulatorBinary: URL {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("inkra-emulator")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return root.appendingPathComponent(".build/debug/inkra-emulator")
    }

    /// A fresh temporary folder.
    static func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// The result of running a process to completion.
struct ProcessResult {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

/// Runs the emulator binary with arguments (and optional standard input).
func runEmulator(_ arguments: [String], input: String? = nil, directory: URL = Repository.root) throws -> ProcessResult
{
    let process = Process()
    process.executableURL = Repository.emulatorBinary
    process.arguments = arguments
    process.currentDirectoryURL = directory
    let output = Pipe()
    let error = Pipe()
    let standardInput = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = standardInput
    try process.run()
    if let input { standardInput.fileHandleForWriting.write(Data(input.utf8)) }
    try standardInput.fileHandleForWriting.close()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus,
        standardOutput: String(decoding: outData, as: UTF8.self),
        standardError: String(decoding: errData, as: UTF8.self)
    )
}
