import Foundation

/// Finds the event files to replay: files as named, folders searched recursively for `*.json`
/// (not `*.expected.json`), in name order — except that recorded events, whose names begin with
/// the instant they were recorded (`2026-11-25T10-00-00.000Z-<request id>.json`, as `import`
/// writes them), go in time order across the function folders, so a `GET /usage` made after a
/// `POST /questions` replays after it, as it ran.
enum EventFiles {
    static func collect(_ paths: [URL]) -> [EventFile] {
        var files: [EventFile] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else {
                files.append(EventFile(url: path, display: path.relativePath, missing: true))
                continue
            }
            guard isDirectory.boolValue else {
                files.append(EventFile(url: path, display: path.relativePath))
                continue
            }
            let root = path.standardizedFileURL.path
            let enumerator = FileManager.default.enumerator(atPath: root)
            var found: [String] = []
            while let relative = enumerator?.nextObject() as? String {
                guard relative.hasSuffix(".json"), !relative.hasSuffix(".expected.json") else { continue }
                let name = (relative as NSString).lastPathComponent
                guard !name.hasPrefix(".") else { continue }
                found.append(relative)
            }
            for relative in found.sorted(by: { orderKey($0).utf8.lexicographicallyPrecedes(orderKey($1).utf8) }) {
                let display = (path.relativePath as NSString).appendingPathComponent(relative)
                files.append(
                    EventFile(url: URL(fileURLWithPath: root).appendingPathComponent(relative), display: display))
            }
        }
        return files
    }

    /// A file's place in its folder's order: a recorded event's name (its instant first), else its path.
    static func orderKey(_ relative: String) -> String {
        let name = (relative as NSString).lastPathComponent
        let recorded = name.prefixMatch(of: /[0-9]{4}-[0-9]{2}-[0-9]{2}T/) != nil
        return recorded ? name + "\u{0}" + relative : relative
    }
}

/// One event file.
struct EventFile: Sendable {
    /// Where it is.
    var url: URL
    /// How it is named in output.
    var display: String
    /// Whether the path did not exist.
    var missing = false

    /// `<name>.expected.json` beside the event.
    var expectationURL: URL {
        url.deletingPathExtension().appendingPathExtension("expected.json")
    }

    /// The function its folder names: the nearest folder called after a function.
    var functionFromFolder: FunctionName? {
        for component in url.deletingLastPathComponent().pathComponents.reversed() {
            if let function = FunctionName(caseInsensitive: component) { return function }
        }
        return nil
    }
}

extension Replayer {
    /// An event file's bytes as JSON reads them: without the UTF-8 byte-order mark that editors on
    /// Windows put at the start (a JSON text has none, but a parser may ignore one: RFC 8259 §8.1).
    public static func jsonBytes(of data: Data) -> [UInt8] {
        let bytes = Array(data)
        return bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
    }
}
