import InkraJSON

/// The log lines of a ``Recording``, in Lambda's text or JSON log format, and their reading back.
///
/// Text: `INKRA_RECORDING <request id> <part>/<parts> <payload>`. JSON: one object with
/// `timestamp`, `level`, `logger`, `message` (`INKRA_RECORDING <request id> <part>/<parts>`) and
/// `recording` (the recording's object when it fits one line, else a string piece of its JSON).
/// A recording whose line would pass CloudWatch Logs' event size limit is split in numbered parts
/// that `import` puts back together; none is ever shortened.
package enum RecordingLines {
    /// The tag that tells a recording from every other log line.
    package static let tag = "INKRA_RECORDING"
    /// The longest line written, in UTF-8 bytes: CloudWatch Logs' event size limit as PutLogEvents
    /// counts it (256 KB, less 26 bytes of overhead per event). AWS raised the limit to 1 MB in
    /// April 2025; lines held to the older one fit both, and every tool that still enforces it.
    package static let maximumLineBytes = 262_144 - 26

    /// The lines of a recording.
    /// - Parameters:
    ///   - json: Lambda's JSON log format (`AWS_LAMBDA_LOG_FORMAT=JSON`) rather than text.
    ///   - timestamp: the JSON line's `timestamp`.
    ///   - maximum: the longest line (tests pass a small one).
    package static func lines(
        for recording: Recording, json: Bool, timestamp: String, maximum: Int = maximumLineBytes
    ) -> [String] {
        let payload = recording.json.jsonString
        let id = recording.requestID
        if let line = line(id: id, part: 1, of: 1, payload: payload, whole: recording.json, json: json, timestamp),
            line.utf8.count <= maximum
        {
            return [line]
        }
        // Room for a piece: the line's frame at its longest, and JSON's escaping of the piece
        // (compact JSON holds no control characters, so no character grows past two bytes).
        let frame = (line(id: id, part: 99_999, of: 99_999, payload: "", whole: nil, json: json, timestamp) ?? "")
            .utf8.count
        let room = max(16, (maximum - frame) / (json ? 2 : 1))
        let pieces = split(Array(payload.utf8), room: room)
        return pieces.enumerated().compactMap { index, piece in
            line(id: id, part: index + 1, of: pieces.count, payload: piece, whole: nil, json: json, timestamp)
        }
    }

    private static func line(
        id: String, part: Int, of parts: Int, payload: String, whole: JSONValue?, json: Bool, _ timestamp: String
    ) -> String? {
        let header = "\(tag) \(id) \(part)/\(parts)"
        guard json else { return "\(header) \(payload)" }
        let object: JSONValue = [
            "timestamp": .string(timestamp), "level": "INFO", "logger": "inkra.recording", "message": .string(header),
            "recording": whole ?? .string(payload),
        ]
        return object.jsonString
    }

    /// UTF-8 bytes cut in pieces of at most `room` bytes, never inside a character.
    private static func split(_ bytes: [UInt8], room: Int) -> [String] {
        var pieces: [String] = []
        var start = 0
        while start < bytes.count {
            var end = min(bytes.count, start + room)
            while end < bytes.count, end > start + 1, bytes[end] & 0xC0 == 0x80 { end -= 1 }
            pieces.append(String(decoding: bytes[start..<end], as: UTF8.self))
            start = end
        }
        return pieces
    }

    /// One part of a recording, read from a log message.
    package struct Part: Sendable, Hashable {
        /// Lambda's request id.
        package var requestID: String
        /// This part's number, from 1.
        package var part: Int
        /// How many parts the recording has.
        package var parts: Int
        /// This part's piece of the recording's JSON text.
        package var payload: String
    }

    /// What a log message holds.
    package enum Reading: Sendable, Hashable {
        /// Not a recording.
        case other
        /// A part of a recording.
        case part(Part)
        /// A recording's tag, but not in the form of one: why.
        case broken(String)
    }

    /// Reads a log message (a line as the runtime wrote it, in either format).
    package static func read(_ message: some StringProtocol) -> Reading {
        let text = String(message.trimmingSuffix { $0 == "\n" || $0 == "\r" })
        guard text.utf8.firstRange(ofPart: tag.utf8) != nil else { return .other }
        if text.first == "{" {
            guard let object = try? JSONParser.parse(text), let header = object["message"]?.string,
                header.hasPrefix(tag)
            else {
                return text.hasPrefix("{\"timestamp\"") ? .broken("a JSON log line that is not whole JSON") : .other
            }
            let payload: String
            switch object["recording"] {
            case .string(let piece)?: payload = piece
            case .object?: payload = object["recording"]?.jsonString ?? ""
            default: return .broken("a JSON recording line without its \"recording\"")
            }
            return parse(header: header, payload: payload)
        }
        guard let start = text.utf8.firstRange(ofPart: (tag + " ").utf8) else { return .other }
        let rest = text[start.lowerBound...]
        let fields = rest.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4 else { return .broken("a recording line without its parts count and payload") }
        return parse(header: fields[0...2].joined(separator: " "), payload: String(fields[3]))
    }

    private static func parse(header: String, payload: String) -> Reading {
        let fields = header.split(separator: " ")
        guard fields.count == 3, fields[0] == tag else {
            return .broken("a recording header that is not \"\(tag) <id> <n>/<parts>\"")
        }
        let counts = fields[2].split(separator: "/")
        guard counts.count == 2, let part = Int(counts[0]), let parts = Int(counts[1]), part >= 1, part <= parts,
            parts <= 10_000
        else { return .broken("a recording part number \"\(fields[2])\" that is not <n>/<parts>") }
        return .part(Part(requestID: String(fields[1]), part: part, parts: parts, payload: payload))
    }
}

extension StringProtocol {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> SubSequence {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return self[startIndex..<end]
    }
}
