import InkraHandlers
import InkraJSON

/// Puts recordings back together from log messages: skips what is not a recording, reports
/// broken lines with their source and line, joins the parts of a split recording, keeps one
/// copy of a recording seen twice, and names recordings whose parts never all came (cut).
package struct RecordingCollector: Sendable {
    /// A line that carries the recording tag but cannot be read.
    package struct Broken: Sendable, Hashable, CustomStringConvertible {
        /// Where it was.
        package var source: String
        /// Its line.
        package var line: Int
        /// What is wrong.
        package var reason: String

        /// `<source>:<line>: <reason>`.
        package var description: String { "\(source):\(line): \(reason)" }
    }

    /// Recordings complete so far, in the order they were completed.
    package private(set) var recordings: [Recording] = []
    /// Messages that were recordings (or parts of one).
    package private(set) var found = 0
    /// Messages that were not recordings.
    package private(set) var skipped = 0
    /// Recordings seen again (same request id) and not kept twice.
    package private(set) var duplicates = 0
    /// Lines that were broken.
    package private(set) var broken: [Broken] = []

    private var pending: [String: Pending] = [:]
    private var completed: Set<String> = []

    private struct Pending {
        var parts: [Int: String] = [:]
        var count: Int
        var source: String
        var line: Int
    }

    /// An empty collector.
    package init() {}

    /// Reads one message.
    package mutating func add(_ message: LogMessage) {
        switch RecordingLines.read(message.text) {
        case .other:
            skipped += 1
        case .broken(let reason):
            found += 1
            broken.append(Broken(source: message.source, line: message.line, reason: reason))
        case .part(let part):
            found += 1
            guard !completed.contains(part.requestID) else {
                if part.part == 1 { duplicates += 1 }
                return
            }
            var entry =
                pending[part.requestID] ?? Pending(count: part.parts, source: message.source, line: message.line)
            guard entry.count == part.parts else {
                broken.append(
                    Broken(
                        source: message.source, line: message.line,
                        reason: "part \(part.part)/\(part.parts) of \(part.requestID) disagrees with "
                            + "\(entry.count) parts seen before"))
                return
            }
            entry.parts[part.part] = part.payload
            guard entry.parts.count == entry.count else {
                pending[part.requestID] = entry
                return
            }
            pending[part.requestID] = nil
            completed.insert(part.requestID)
            let text = (1...entry.count).compactMap { entry.parts[$0] }.joined()
            guard let json = try? JSONParser.parse(text), let recording = Recording(json: json) else {
                broken.append(
                    Broken(
                        source: entry.source, line: entry.line,
                        reason: "recording \(part.requestID) is not a recording's JSON (version 1)"))
                return
            }
            recordings.append(recording)
        }
    }

    /// Recordings some of whose parts never came: request id, the parts seen, where the first was.
    package var cut: [(requestID: String, seen: [Int], of: Int, source: String, line: Int)] {
        pending.sorted { $0.key < $1.key }.map { id, entry in
            (id, entry.parts.keys.sorted(), entry.count, entry.source, entry.line)
        }
    }
}
