import Foundation

/// The machine's `python3`, for tests that drive the stack with Python clients (boto3, pycognito).
package enum Python {
    /// Whether `python3` is on PATH and imports every one of `modules`: for an `.enabled` trait's
    /// condition, which Swift Testing awaits, so the child is waited for off its cooperative threads.
    package static func imports(_ modules: String...) async -> Bool {
        let result = try? await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", "import " + modules.joined(separator: ", ")])
        return result?.status == 0
    }
}
