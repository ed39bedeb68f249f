import Foundation
import InkraHandlers
import InkraJSON
import InkraTime
import InkraUsage

/// Imports a JSON-lines file of events — `replay`'s form for many events: an event a line, naming
/// its function under `x-inkra-function`, its expected result, if any, under `x-inkra-expected` —
/// into an events folder as ``ImportWriter`` writes recordings: `DIR/<function>/<recorded
/// time>-<request id>.json` and its `.expected.json`, user ids pseudonymized when asked. The file
/// is read a line at a time; a line that is not such an event is reported by its line number.
package struct EventLinesImport {
    /// What the import did.
    package struct Outcome: Sendable {
        /// Events written.
        package var written = 0
        /// `<source>:<line>: <reason>` of each line that could not be imported.
        package var broken: [String] = []

        /// Nothing imported yet.
        package init() {}
    }

    /// Writes the events.
    package var writer: ImportWriter

    /// An import into a writer's folder.
    package init(writer: ImportWriter) { self.writer = writer }

    /// Whether a source is a JSON-lines file of events: named `*.jsonl` or `*.ndjson`, its first
    /// line an object with `x-inkra-function` (a capture of log lines is not).
    package static func accepts(_ url: URL) -> Bool {
        guard EventSource.isJSONLines(url),
            var reader = try? JSONLinesReader(url: url, limit: Replayer.maximumEventSize),
            let line = try? reader.next(), let first = try? JSONParser.parse(line.bytes)
        else { return false }
        return first["x-inkra-function"]?.string != nil
    }

    /// Imports every line of a file.
    /// - Parameters:
    ///   - url: the file.
    ///   - name: the file as named on the command line.
    /// - Returns: what was written and what was not.
    /// - Throws: ``EmulatorError`` when the file cannot be read or an event cannot be written.
    package func run(_ url: URL, named name: String) throws(EmulatorError) -> Outcome {
        var outcome = Outcome()
        var reader: JSONLinesReader
        do {
            reader = try JSONLinesReader(url: url, limit: Replayer.maximumEventSize)
        } catch {
            throw EmulatorError("\(name): cannot be read: \(error.localizedDescription)")
        }
        while true {
            let line: JSONLinesReader.Line?
            do {
                line = try reader.next()
            } catch {
                throw EmulatorError("\(name): cannot be read: \(error.localizedDescription)")
            }
            guard let line else { return outcome }
            let loaded = EventSource.event(of: line, in: name)
            if let problem = loaded.problem {
                outcome.broken.append("\(loaded.display): \(problem)")
                continue
            }
            guard let function = loaded.function, let time = Replayer.recordedTime(loaded.event) else {
                outcome.broken.append(
                    "\(loaded.display): the event has no time (requestContext.requestTimeEpoch, timeEpoch or "
                        + "x-inkra-recorded-at)")
                continue
            }
            var event = loaded.event
            event.set(nil, at: [LoadedEvent.expectedField])
            let requestID = event["requestContext"]?["requestId"]?.scalarText ?? "line-\(line.number)"
            try writer.write(
                event: event, function: function.rawValue, requestID: requestID,
                epochMilliseconds: Int((time.timeIntervalSince1970 * 1000).rounded()), expectation: loaded.expected())
            outcome.written += 1
        }
    }
}
