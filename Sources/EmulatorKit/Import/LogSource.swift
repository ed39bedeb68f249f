import CZlib
import Foundation
import InkraJSON
import InkraTime

/// One log message from a source, with where it was.
package struct LogMessage: Sendable, Hashable {
    /// The source file, as named on the command line.
    package var source: String
    /// The line of the source it came from (for CLI output: the line its page starts on).
    package var line: Int
    /// The message as the runtime wrote it.
    package var text: String
}

/// Reads captured logs in the forms `inkra-emulator import` accepts:
/// - what `aws logs filter-log-events --output json` and `aws logs get-log-events` print (an object
///   with `events`), one page or several saved one after another;
/// - CloudWatch Logs' export to S3: gzip'd files of `<timestamp> <message>` lines;
/// - a plain capture of the runtime's output (`run-runtime`, a local run): one message a line.
package enum LogSource {
    /// The messages of one source file.
    /// - Throws: ``EmulatorError`` when the file cannot be read or decompressed.
    package static func messages(of url: URL, named name: String) throws(EmulatorError) -> [LogMessage] {
        let data = try Replayer.contents(of: url) { "\(name): cannot be read: \($0)" }
        var bytes = Array(data)
        var exported = false
        if bytes.starts(with: [0x1F, 0x8B]) {
            bytes = try gunzip(bytes, name: name)
            exported = true
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        let text = String(decoding: bytes, as: UTF8.self)
        if !exported, let pages = cliPages(text) {
            return pages.flatMap { page in
                page.events.map { LogMessage(source: name, line: page.line, text: $0) }
            }
        }
        var messages: [LogMessage] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var message = Substring(line)
            if message.last == "\r" { message = message.dropLast() }
            if exported { message = withoutTimestamp(message) }
            guard !message.isEmpty else { continue }
            messages.append(LogMessage(source: name, line: index + 1, text: String(message)))
        }
        return messages
    }

    /// An S3 export line's message: the line less its leading ISO-8601 timestamp.
    static func withoutTimestamp(_ line: Substring) -> Substring {
        guard let space = line.firstIndex(of: " "),
            CivilTime.instant(iso8601: String(line[..<space]), allowingDate: true) != nil
        else { return line }
        return line[line.index(after: space)...]
    }

    /// The pages of `aws logs` JSON output, or `nil` when the text is not that.
    static func cliPages(_ text: String) -> [(line: Int, events: [String])]? {
        let bytes = Array(text.utf8)
        guard let first = bytes.firstIndex(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }),
            bytes[first] == UInt8(ascii: "{")
        else { return nil }
        var pages: [(line: Int, events: [String])] = []
        for (start, end) in documents(bytes) {
            guard let page = try? JSONParser.parse(Array(bytes[start..<end])), let events = page["events"]?.array else {
                return pages.isEmpty ? nil : pages
            }
            let line = bytes[..<start].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            pages.append((line, events.compactMap { $0["message"]?.string }))
        }
        return pages.isEmpty ? nil : pages
    }

    /// The ranges of the top-level JSON documents saved one after another.
    static func documents(_ bytes: [UInt8]) -> [(Int, Int)] {
        var ranges: [(Int, Int)] = []
        var depth = 0
        var start = 0
        var inString = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") {
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                if depth == 0 { start = index }
                depth += 1
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { ranges.append((start, index + 1)) }
            }
            index += 1
        }
        if depth > 0 { ranges.append((start, bytes.count)) }
        return ranges
    }

    /// A gzip file's content (every member, as `gzip -d` reads concatenated members).
    static func gunzip(_ input: [UInt8], name: String) throws(EmulatorError) -> [UInt8] {
        var stream = z_stream()
        // 16 + MAX_WBITS: a gzip header and trailer around the deflate stream.
        guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw EmulatorError("\(name): zlib cannot start")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var input = input
        var status: Int32 = Z_OK
        var offset = 0
        while offset < input.count {
            status = input.withUnsafeMutableBufferPointer { source in
                buffer.withUnsafeMutableBufferPointer { target in
                    stream.next_in = source.baseAddress! + offset
                    stream.avail_in = uInt(source.count - offset)
                    var result: Int32 = Z_OK
                    repeat {
                        stream.next_out = target.baseAddress
                        stream.avail_out = uInt(target.count)
                        result = inflate(&stream, Z_NO_FLUSH)
                        output += target[0..<(target.count - Int(stream.avail_out))]
                    } while result == Z_OK && stream.avail_out == 0
                    return result
                }
            }
            offset = input.count - Int(stream.avail_in)
            if status == Z_STREAM_END {
                guard offset < input.count else { break }
                inflateReset(&stream)
                continue
            }
            if status == Z_BUF_ERROR && stream.avail_in == 0 { break }
            guard status == Z_OK else {
                throw EmulatorError("\(name): not a readable gzip file (zlib status \(status))")
            }
        }
        guard status == Z_STREAM_END else {
            throw EmulatorError("\(name): the gzip file ends early (it was cut)")
        }
        input.removeAll()
        return output
    }
}
