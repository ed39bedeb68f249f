import Foundation

/// Notices changes to the files under some paths (`serve --watch`), by looking at their sizes and
/// modification times every `interval`: no file-system events, so it reads the same on Linux and
/// macOS. Folders and files whose name starts with a dot (`.build`, `.git`) are skipped.
package struct SourceWatcher: Sendable {
    /// A file's size and modification time.
    struct Stamp: Hashable {
        var size: Int
        var modified: Date
    }

    /// The files and folders watched.
    package let roots: [URL]
    /// How often they are looked at.
    package let interval: Duration

    package init(roots: [URL], interval: Duration = .milliseconds(500)) {
        self.roots = roots
        self.interval = interval
    }

    /// Every file under the roots, with its stamp.
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
    package func nextChange() async throws -> [String] {
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
        let paths = Set(before.keys).union(current.keys).filter { before[$0] != current[$0] }
        return paths.sorted()
    }
}
