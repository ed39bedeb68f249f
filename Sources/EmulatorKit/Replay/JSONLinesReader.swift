import Foundation

/// Reads a JSON-lines file a line at a time, 64 KiB at a time, so a file of a million events is
/// never in memory at once. A line longer than the limit is skipped to its end and reported by its
/// length, not kept.
struct JSONLinesReader {
    /// One line of the file.
    struct Line {
        /// Its number, from 1.
        var number: Int
        /// Its bytes, without the line break (and without a UTF-8 byte-order mark on line 1).
        var bytes: [UInt8]
        /// Its length when it was longer than the limit (its bytes are then empty).
        var oversized: Int?
    }

    private let handle: FileHandle
    private let limit: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var number = 0
    private var ended = false

    /// Opens a file.
    /// - Throws: what Foundation throws when the file cannot be opened.
    init(url: URL, limit: Int) throws {
        handle = try FileHandle(forReadingFrom: url)
        self.limit = limit
    }

    /// The next line that is not blank, or `nil` at the end of the file.
    mutating func next() throws -> Line? {
        while true {
            guard var line = try nextLine() else {
                try? handle.close()
                return nil
            }
            if line.number == 1, line.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { line.bytes.removeFirst(3) }
            if line.oversized != nil || line.bytes.contains(where: { !Self.isBlank($0) }) { return line }
        }
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D }

    private mutating func nextLine() throws -> Line? {
        var skipped: Int?
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                number += 1
                var end = newline
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                let line = Line(
                    number: number, bytes: skipped == nil ? Array(buffer[start..<end]) : [],
                    oversized: skipped.map { $0 + end - start })
                start = newline + 1
                return line
            }
            if buffer.count - start > limit {
                skipped = (skipped ?? 0) + buffer.count - start
                buffer.removeAll(keepingCapacity: true)
                start = 0
            }
            guard !ended else {
                guard start < buffer.count || skipped != nil else { return nil }
                number += 1
                let line = Line(
                    number: number, bytes: skipped == nil ? Array(buffer[start...]) : [],
                    oversized: skipped.map { $0 + buffer.count - start })
                buffer.removeAll()
                start = 0
                return line
            }
            try fill()
        }
    }

    private mutating func fill() throws {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        guard let data = try handle.read(upToCount: 1 << 16), !data.isEmpty else {
            ended = true
            return
        }
        buffer.append(contentsOf: data)
    }
}
