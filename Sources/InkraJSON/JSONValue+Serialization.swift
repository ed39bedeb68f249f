extension JSONValue {
    /// The value as compact JSON text, object members in their order.
    public var jsonString: String {
        var output = ""
        write(to: &output)
        return output
    }

    /// The value as compact UTF-8 JSON.
    public var jsonBytes: [UInt8] { Array(jsonString.utf8) }

    /// The value as indented JSON text, for people.
    public var prettyJSONString: String {
        var output = ""
        writePretty(to: &output, indent: 0)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let text): output += text
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let elements):
            output += "["
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let object):
            output += "{"
            for (offset, member) in object.pairs.enumerated() {
                if offset > 0 { output += "," }
                Self.writeString(member.key, to: &output)
                output += ":"
                member.value.write(to: &output)
            }
            output += "}"
        }
    }

    private func writePretty(to output: inout String, indent: Int) {
        let padding = String(repeating: "  ", count: indent + 1)
        let closing = String(repeating: "  ", count: indent)
        switch self {
        case .array(let elements) where !elements.isEmpty:
            output += "[\n"
            for (offset, element) in elements.enumerated() {
                output += padding
                element.writePretty(to: &output, indent: indent + 1)
                output += offset < elements.count - 1 ? ",\n" : "\n"
            }
            output += closing + "]"
        case .object(let object) where !object.isEmpty:
            output += "{\n"
            for (offset, member) in object.pairs.enumerated() {
                output += padding
                Self.writeString(member.key, to: &output)
                output += ": "
                member.value.writePretty(to: &output, indent: indent + 1)
                output += offset < object.count - 1 ? ",\n" : "\n"
            }
            output += closing + "}"
        default:
            write(to: &output)
        }
    }

    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "\u{00}"..."\u{1F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
