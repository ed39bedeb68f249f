extension JSONValue {
    /// The value as compact JSON text, object members in their order.
    public var jsonString: String { String(decoding: jsonBytes, as: UTF8.self) }

    /// The value as compact UTF-8 JSON.
    package var jsonBytes: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(to: &output)
        return output
    }

    /// The value as indented JSON text, for people.
    package var prettyJSONString: String {
        var output: [UInt8] = []
        writePretty(to: &output, indent: 0)
        return String(decoding: output, as: UTF8.self)
    }

    private func write(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let text): output.append(contentsOf: text.utf8)
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (offset, member) in object.pairs.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private func writePretty(to output: inout [UInt8], indent: Int) {
        func pad(_ level: Int) { output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level)) }
        switch self {
        case .array(let elements) where !elements.isEmpty:
            output.append(contentsOf: "[\n".utf8)
            for (offset, element) in elements.enumerated() {
                pad(indent + 1)
                element.writePretty(to: &output, indent: indent + 1)
                output.append(contentsOf: (offset < elements.count - 1 ? ",\n" : "\n").utf8)
            }
            pad(indent)
            output.append(UInt8(ascii: "]"))
        case .object(let object) where !object.isEmpty:
            output.append(contentsOf: "{\n".utf8)
            for (offset, member) in object.pairs.enumerated() {
                pad(indent + 1)
                Self.writeString(member.key, to: &output)
                output.append(contentsOf: ": ".utf8)
                member.value.writePretty(to: &output, indent: indent + 1)
                output.append(contentsOf: (offset < object.count - 1 ? ",\n" : "\n").utf8)
            }
            pad(indent)
            output.append(UInt8(ascii: "}"))
        default:
            write(to: &output)
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped, U+2028 and
    /// U+2029 as `\u` escapes (so the text is also valid JavaScript), everything else as UTF-8.
    /// Runs of bytes that need no escape are copied at once.
    private static func writeString(_ value: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { bytes in
            var start = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0xE2 else {
                    index += 1
                    continue
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                index += 1
                switch byte {
                case UInt8(ascii: "\""): output.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\\"): output.append(contentsOf: "\\\\".utf8)
                case UInt8(ascii: "\n"): output.append(contentsOf: "\\n".utf8)
                case UInt8(ascii: "\r"): output.append(contentsOf: "\\r".utf8)
                case UInt8(ascii: "\t"): output.append(contentsOf: "\\t".utf8)
                case 0x08: output.append(contentsOf: "\\b".utf8)
                case 0x0C: output.append(contentsOf: "\\f".utf8)
                case 0xE2:
                    // U+2028 and U+2029 are E2 80 A8 and E2 80 A9; other E2 sequences pass as they are.
                    let separator = index + 1 < bytes.count && bytes[index] == 0x80 ? bytes[index + 1] : 0
                    if separator == 0xA8 || separator == 0xA9 {
                        appendEscape(separator == 0xA8 ? 0x2028 : 0x2029, to: &output)
                        index += 2
                    } else {
                        output.append(byte)
                    }
                default: appendEscape(UInt32(byte), to: &output)
                }
                start = index
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// `\uXXXX` for a code point below U+10000.
    private static func appendEscape(_ value: UInt32, to output: inout [UInt8]) {
        output.append(contentsOf: "\\u".utf8)
        for shift in stride(from: 12, through: 0, by: -4) {
            output.append(hexDigits[Int((value >> UInt32(shift)) & 0xF)])
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
