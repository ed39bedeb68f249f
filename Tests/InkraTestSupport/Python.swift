import Foundation

/// The machine's `python3`, for tests that drive the stack with Python clients (boto3, pycognito).
package enum Python {
    /// Whether `python3` is on PATH and imports every one of `modules`.
    package static func imports(_ modules: String...) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import " + modules.joined(separator: ", ")]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return false
        }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
