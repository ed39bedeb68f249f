import InkraJSON

/// A request body with its content gone and its form kept: every string value becomes a placeholder
/// of the same UTF-8 length and the same number of characters, so the redacted body is valid or
/// invalid JSON exactly where the original was, is as long, and a function refuses it (or accepts
/// it) for the same reason.
///
/// It works on the bytes, not on a parsed value, so an invalid, empty or too-long body keeps its
/// length and the place where a parser stops. What stays: the JSON structure, object keys, numbers,
/// `true`/`false`/`null`, whitespace around values and at the ends of a string (a topic of spaces
/// stays blank), the values of enumerated fields (`length`: short, medium, long), and the one
/// byte where the original stops parsing (its error message names it). Everything else that is
/// not structure becomes `x`.
package enum BodyRedaction {
    /// Enumerated string values that are kept, by key: they carry no content.
    static let keptValues: [String: Set<String>] = ["length": ["short", "medium", "long"]]

    /// The body with its content replaced.
    package static func redact(_ bytes: [UInt8]) -> [UInt8] {
        let stop = stopOffset(bytes)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        var lastKey: String?
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let end = stringEnd(bytes, from: index)
                let literal = Array(bytes[index..<end])
                let isKey = isFollowedByColon(bytes, from: end)
                let raw = String(decoding: literal.dropFirst().dropLast(literal.count > 1 ? 1 : 0), as: UTF8.self)
                if isKey {
                    output += literal
                    lastKey = raw
                } else if let key = lastKey, keptValues[key]?.contains(raw) == true {
                    output += literal
                } else {
                    output += redactString(literal)
                }
                if !isKey { lastKey = nil }
                index = end
                continue
            }
            if isLetter(byte) {
                var end = index
                while end < bytes.count, isLetter(bytes[end]) { end += 1 }
                output += redactWord(Array(bytes[index..<end]))
                index = end
                continue
            }
            output.append(isKeptOutside(byte) ? byte : UInt8(ascii: "x"))
            index += 1
        }
        // The byte where the original stops parsing is kept, so its error names the same thing (an
        // ASCII byte only: one byte of a longer character would leave the text invalid UTF-8).
        if let stop, stop < output.count, stop < bytes.count, bytes[stop] < 0x80 { output[stop] = bytes[stop] }
        return output
    }

    /// Where a JSON parser stops on the original, if it does.
    private static func stopOffset(_ bytes: [UInt8]) -> Int? {
        do {
            _ = try JSONParser.parse(bytes, maximumDepth: 64)
            return nil
        } catch {
            return error.offset
        }
    }

    /// The index just past a string literal that starts at `start` (its closing quote, or the end).
    private static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return bytes.count
    }

    private static func isFollowedByColon(_ bytes: [UInt8], from start: Int) -> Bool {
        var index = start
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index < bytes.count && bytes[index] == UInt8(ascii: ":")
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// Structure, whitespace and the characters of numbers.
    private static func isKeptOutside(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ":"),
            UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"),
            UInt8(ascii: "+"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    /// A word outside strings: a leading `true`, `false` or `null` stays (a number's exponent is
    /// kept too); the rest becomes `x`.
    private static func redactWord(_ word: [UInt8]) -> [UInt8] {
        for literal in ["true", "false", "null"] where word.starts(with: Array(literal.utf8)) {
            return Array(literal.utf8) + Array(repeating: UInt8(ascii: "x"), count: word.count - literal.utf8.count)
        }
        if word.allSatisfy({ $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) { return word }
        return Array(repeating: UInt8(ascii: "x"), count: word.count)
    }

    /// A string literal (quotes included) with its characters replaced; whitespace at its ends stays.
    private static func redactString(_ literal: [UInt8]) -> [UInt8] {
        let closed = literal.count >= 2 && literal.last == UInt8(ascii: "\"") && !endsInEscape(literal)
        let inner = Array(literal.dropFirst().dropLast(closed ? 1 : 0))
        let units = StringUnits.split(inner)
        let first = units.firstIndex { !$0.isWhitespace } ?? units.count
        let last = units.lastIndex { !$0.isWhitespace } ?? -1
        var output: [UInt8] = [UInt8(ascii: "\"")]
        for (position, unit) in units.enumerated() {
            output += position >= first && position <= last ? unit.placeholder : unit.bytes
        }
        if closed { output.append(UInt8(ascii: "\"")) }
        return output
    }

    private static func endsInEscape(_ literal: [UInt8]) -> Bool {
        var backslashes = 0
        for byte in literal.dropLast().reversed() {
            guard byte == UInt8(ascii: "\\") else { break }
            backslashes += 1
        }
        return backslashes % 2 == 1
    }
}

/// The pieces of a string literal's inside: characters as written, and escapes.
struct StringUnits {
    /// One character or one escape.
    struct Unit {
        var bytes: [UInt8]
        var isWhitespace: Bool
        var placeholder: [UInt8]
    }

    static func split(_ inner: [UInt8]) -> [Unit] {
        var units: [Unit] = []
        var index = 0
        var run: [UInt8] = []
        func flush() {
            guard !run.isEmpty else { return }
            units += characters(run)
            run = []
        }
        while index < inner.count {
            guard inner[index] == UInt8(ascii: "\\"), index + 1 < inner.count else {
                run.append(inner[index])
                index += 1
                continue
            }
            flush()
            let escape = inner[index + 1]
            if escape == UInt8(ascii: "u") {
                let length = unicodeEscapeLength(inner, at: index)
                units.append(unicodeEscape(Array(inner[index..<(index + length)])))
                index += length
            } else {
                let bytes = [inner[index], escape]
                let blank = [UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"), UInt8(ascii: "f")]
                    .contains(escape)
                let known = Array(#""\/bfnrt"#.utf8).contains(escape)
                units.append(
                    Unit(bytes: bytes, isWhitespace: blank, placeholder: known ? Array(#"\/"#.utf8) : bytes))
                index += 2
            }
        }
        flush()
        return units
    }

    /// Characters as written: each becomes one character of as many UTF-8 bytes. Bytes that are
    /// not UTF-8 become 0xFF each, which stays invalid.
    private static func characters(_ bytes: [UInt8]) -> [Unit] {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return bytes.map { byte in
                Unit(bytes: [byte], isWhitespace: false, placeholder: byte < 0x80 ? [UInt8(ascii: "x")] : [0xFF])
            }
        }
        return text.map { character in
            let bytes = Array(String(character).utf8)
            if bytes.allSatisfy({ $0 < 0x20 }) {
                return Unit(bytes: bytes, isWhitespace: character.isWhitespace, placeholder: bytes)
            }
            return Unit(bytes: bytes, isWhitespace: character.isWhitespace, placeholder: placeholder(bytes.count))
        }
    }

    /// One character of `count` UTF-8 bytes: `x`, `é`, or `x` carrying combining marks.
    static func placeholder(_ count: Int) -> [UInt8] {
        switch count {
        case 1: return Array("x".utf8)
        case 2: return Array("\u{E9}".utf8)
        default:
            var bytes = Array("x".utf8)
            var left = count - 1
            if left % 2 == 1 {
                bytes += Array("\u{20D0}".utf8)
                left -= 3
            }
            bytes += Array(repeating: Array("\u{300}".utf8), count: left / 2).flatMap { $0 }
            return bytes
        }
    }

    private static func unicodeEscapeLength(_ inner: [UInt8], at index: Int) -> Int {
        guard let high = hex(inner, at: index + 2) else { return min(2, inner.count - index) }
        if (0xD800..<0xDC00).contains(high), index + 12 <= inner.count, inner[index + 6] == UInt8(ascii: "\\"),
            inner[index + 7] == UInt8(ascii: "u"), let low = hex(inner, at: index + 8), (0xDC00..<0xE000).contains(low)
        {
            return 12
        }
        return 6
    }

    private static func unicodeEscape(_ bytes: [UInt8]) -> Unit {
        guard bytes.count >= 6, let value = hex(bytes, at: 2) else {
            return Unit(bytes: bytes, isWhitespace: false, placeholder: bytes)
        }
        if bytes.count == 12 {
            return Unit(bytes: bytes, isWhitespace: false, placeholder: Array(#"\ud835\udc65"#.utf8))
        }
        guard let scalar = Unicode.Scalar(value) else {
            return Unit(bytes: bytes, isWhitespace: false, placeholder: bytes)
        }
        let width = String(Character(scalar)).utf8.count
        let replacement = width == 1 ? #"\u0078"# : width == 2 ? #"\u00e9"# : #"\u3042"#
        return Unit(bytes: bytes, isWhitespace: scalar.properties.isWhitespace, placeholder: Array(replacement.utf8))
    }

    private static func hex(_ bytes: [UInt8], at start: Int) -> UInt32? {
        guard start + 4 <= bytes.count else { return nil }
        return UInt32(String(decoding: bytes[start..<(start + 4)], as: UTF8.self), radix: 16)
    }
}
