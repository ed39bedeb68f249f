import EmulatorKit
import Foundation
import InkraTestSupport
import InkraTime

/// Paths in the repository, and the emulator binary the test run built.
enum Repository {
    static let root = ChildProcess.repositoryRoot

    static let events = root.appendingPathComponent("events")
    static let developmentKeys = root.appendingPathComponent("emulator/dev-keys")

    static let developmentKey: DevelopmentKey = {
        do { return try DevelopmentKey(directory: developmentKeys) } catch { fatalError("\(error)") }
    }()

    /// Options that trust the development key, as the command line's defaults do.
    static func options(state: URL? = nil, now: Timestamp? = nil) -> EmulatorOptions {
        var options = EmulatorOptions(clock: { Timestamp.now })
        options.developmentKey = developmentKey
        options.stateFile = state
        options.now = now
        return options
    }

    /// The `inkra-emulator` executable beside the test bundle.
    static var emulatorBinary: URL { ChildProcess.built("inkra-emulator") }

    /// A fresh temporary folder.
    static func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Runs the emulator binary with arguments (and optional standard input).
func runEmulator(_ arguments: [String], input: String? = nil, directory: URL = Repository.root) async throws
    -> ProcessResult
{
    try await ChildProcess.run(Repository.emulatorBinary, arguments, input: input, directory: directory)
}
