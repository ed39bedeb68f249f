import Foundation
import InkraJSON

/// The events to replay, read one at a time: files as named; folders searched recursively for
/// `*.json` (not `*.expected.json`), in name order — except that recorded events, whose names begin
/// with the instant they were recorded (`2026-11-25T10-00-00.000Z-<request id>.json`, as `import`
/// writes them), go in time order across the function folders, so a `GET /usage` made after a
/// `POST /questions` replays after it, as it ran; and JSON-lines files (`*.jsonl`, `*.ndjson`), an
/// event a line, in line order.
///
/// A folder's file names are listed and sorted first (a recorded name's order cannot be told
/// without them all), but no event is read before its turn; a JSON-lines file is read as it goes.
package struct EventSource {
    private var paths: [URL]
    private var folder: Folder?
    private var lines: (reader: JSONLinesReader, display: String)?

    /// The events of a folder not yet read: its root, and its files' order keys, sorted.
    private struct Folder {
        var root: String
        var display: String
        /// The function the root's own path names, if any.
        var function: FunctionName?
        var keys: OrderKeys
        var position = 0
    }

    private var total: Int?

    /// How many events the source holds, once that is known without reading them: when every
    /// path has been opened and none is a JSON-lines file.
    var knownTotal: Int? { paths.isEmpty ? total : nil }

    /// The events of files, folders and JSON-lines files, in that order.
    package init(_ paths: [URL]) {
        self.paths = paths.reversed()
        total = paths.contains(where: Self.isJSONLines) ? nil : 0
    }

    /// Whether a path names a JSON-lines file.
    static func isJSONLines(_ url: URL) -> Bool { ["jsonl", "ndjson"].contains(url.pathExtension.lowercased()) }

    /// The next event, or `nil` when every path is read.
    package mutating func next() -> LoadedEvent? {
        while true {
            if var current = folder {
                if current.position < current.keys.count {
                    let relative = Self.relativePath(ofKey: current.keys[current.position])
                    current.position += 1
                    folder = current
                    let file = EventFile(
                        path: current.root + "/" + relative, display: Self.joined(current.display, relative),
                        function: EventFile.function(inFolders: EventFile.folder(of: relative)) ?? current.function)
                    return file.load()
                }
                folder = nil
            }
            if var current = lines {
                // Taken out while it reads, so its buffer has one owner and is not copied.
                lines = nil
                do {
                    if let line = try current.reader.next() {
                        lines = current
                        return Self.event(of: line, in: current.display)
                    }
                } catch {
                    return LoadedEvent(
                        display: current.display, problem: "cannot be read: \(error.localizedDescription)")
                }
            }
            guard let path = paths.popLast() else { return nil }
            if let event = open(path) { return event }
        }
    }

    /// Starts on a path: a single event is returned; a folder or a JSON-lines file is opened.
    private mutating func open(_ path: URL) -> LoadedEvent? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else {
            return LoadedEvent(display: path.relativePath, problem: "no such file or folder")
        }
        if isDirectory.boolValue {
            let root = path.standardizedFileURL.path
            guard let keys = Self.orderKeys(in: root) else {
                return LoadedEvent(
                    display: path.relativePath,
                    problem: "holds more than 4 GiB of event file names; replay its subfolders one at a time")
            }
            total = total.map { $0 + keys.count }
            folder = Folder(
                root: root, display: path.relativePath, function: EventFile.function(inFolders: Substring(root)),
                keys: keys)
            return nil
        }
        guard Self.isJSONLines(path) else {
            total = total.map { $0 + 1 }
            return EventFile(
                path: path.path, display: path.relativePath,
                function: EventFile.function(inFolders: EventFile.folder(of: path.path))
            ).load()
        }
        do {
            lines = (try JSONLinesReader(url: path, limit: Replayer.maximumEventSize), path.relativePath)
            return nil
        } catch {
            return LoadedEvent(display: path.relativePath, problem: "cannot be read: \(error.localizedDescription)")
        }
    }

    /// A JSON-lines file's line as an event, named `<file>:<line>`.
    static func event(of line: JSONLinesReader.Line, in display: String) -> LoadedEvent {
        let name = "\(display):\(line.number)"
        if let length = line.oversized {
            return LoadedEvent(
                display: name, problem: "event is \(length) bytes; Lambda accepts at most \(Replayer.maximumEventSize)")
        }
        return LoadedEvent(bytes: line.bytes, display: name, folderFunction: nil, expectation: nil)
    }

    /// The order keys of a folder's event files, sorted; `nil` when their names pass 4 GiB.
    ///
    /// The folder is listed twice: first to size the keys' buffer, so that it never grows by
    /// copying itself (a folder of a million events peaked at 71 MB that way, 60 MB sized first).
    static func orderKeys(in root: String) -> OrderKeys? {
        var count = 0
        var bytes = 0
        forEachEventFile(in: root) { key in
            count += 1
            bytes += key.utf8.count
        }
        var keys = OrderKeys(reservingCapacity: count, bytes: bytes)
        var fits = true
        forEachEventFile(in: root) { key in fits = fits && keys.append(key) }
        guard fits else { return nil }
        keys.sort()
        return keys
    }

    /// Calls `body` with the order key of each event file under a folder (`*.json`, not
    /// `*.expected.json` nor hidden), in the order the file system lists them.
    private static func forEachEventFile(in root: String, _ body: (String) -> Void) {
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".json"), !relative.hasSuffix(".expected.json") else { continue }
            let name = (relative as NSString).lastPathComponent
            guard !name.hasPrefix(".") else { continue }
            body(orderKey(relative, name: name))
        }
    }

    /// A file's place in its folder's order: a recorded event's name (its instant first) and its
    /// path after a NUL, else its path.
    static func orderKey(_ relative: String, name: String) -> String {
        isRecorded(name) ? name + "\u{0}" + relative : relative
    }

    /// `folder/relative`, as `NSString.appendingPathComponent` joins them.
    static func joined(_ folder: String, _ relative: String) -> String {
        folder.isEmpty ? relative : folder.hasSuffix("/") ? folder + relative : folder + "/" + relative
    }

    /// The path an order key was made from.
    static func relativePath(ofKey key: String) -> String {
        guard let nul = key.utf8.firstIndex(of: 0) else { return key }
        return String(key[key.utf8.index(after: nul)...])
    }

    /// Whether a name begins with a date, `YYYY-MM-DDT`.
    static func isRecorded(_ name: String) -> Bool {
        let bytes = Array(name.utf8.prefix(11))
        guard bytes.count == 11, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T")
        else { return false }
        return [0, 1, 2, 3, 5, 6, 8, 9].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[$0]) }
    }
}

/// One event file. Its paths are strings: a million `URL`s cost more than the events they name.
struct EventFile: Sendable {
    /// Where it is.
    var path: String
    /// How it is named in output.
    var display: String
    /// The function its folders name: the nearest folder called after a function.
    var function: FunctionName?

    /// `<name>.expected.json` beside the event.
    var expectationPath: String {
        let name = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path[path.utf8.index(after: $0)...] } ?? path[...]
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else {
            return path + ".expected.json"
        }
        return String(path[..<dot]) + ".expected.json"
    }

    /// The folders of a path: all of it up to its last `/`.
    static func folder(of path: String) -> Substring {
        path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path[..<$0] } ?? ""
    }

    /// The function the nearest of some folders is called after.
    static func function(inFolders folders: Substring) -> FunctionName? {
        for component in folders.split(separator: "/").reversed() {
            if let function = FunctionName(caseInsensitive: String(component)) { return function }
        }
        return nil
    }

    /// Reads and parses the file.
    func load() -> LoadedEvent {
        let data: Data
        do {
            data = try Data(contentsOf: URL(filePath: path, directoryHint: .notDirectory))
        } catch {
            return LoadedEvent(display: display, problem: "cannot be read: \(error.localizedDescription)")
        }
        return LoadedEvent(
            bytes: Replayer.jsonBytes(of: data), display: display, folderFunction: function,
            expectation: .beside(URL(filePath: expectationPath, directoryHint: .notDirectory)))
    }
}

extension Replayer {
    /// An event file's bytes as JSON reads them: without the UTF-8 byte-order mark that editors on
    /// Windows put at the start (a JSON text has none, but a parser may ignore one: RFC 8259 §8.1).
    package static func jsonBytes(of data: Data) -> [UInt8] {
        let bytes = Array(data)
        return bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
    }

    /// A JSON file's value, `nil` when there is no such file.
    /// - Throws: ``EmulatorError`` naming the file (as `name`) when it cannot be read or is not JSON.
    static func readJSON(_ url: URL, named name: String) throws(EmulatorError) -> JSONValue? {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return nil
        } catch {
            throw EmulatorError("\(name) cannot be read: \(error.localizedDescription)")
        }
        do {
            return try JSONParser.parse(jsonBytes(of: data))
        } catch {
            throw EmulatorError("\(name) is not valid JSON: \(error)")
        }
    }

    /// A file's bytes.
    /// - Throws: ``EmulatorError`` of `message` with why the file cannot be read.
    static func contents(of url: URL, or message: (String) -> String) throws(EmulatorError) -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw EmulatorError(message(error.localizedDescription))
        }
    }

    /// Writes a file whole (atomically), making its folder first.
    /// - Throws: ``EmulatorError`` naming the file.
    static func write(_ text: String, to url: URL) throws(EmulatorError) {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw EmulatorError("cannot write \(url.path): \(error.localizedDescription)")
        }
    }
}
