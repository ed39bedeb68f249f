/// Splits an expression into tokens.
struct ExpressionLexer {
    enum Token: Hashable {
        case identifier(String)
        case name(String)
        case value(String)
        case number(Int)
        case symbol(String)
        case end

        var text: String {
            switch self {
            case .identifier(let text), .name(let text), .value(let text), .symbol(let text): text
            case .number(let value): String(value)
            case .end: "<end>"
            }
        }

        /// Whether this is the keyword, ignoring case.
        func isKeyword(_ keyword: String) -> Bool {
            if case .identifier(let text) = self { return text.uppercased() == keyword }
            return false
        }
    }

    static func tokens(_ text: String, kind: String) throws(TableError) -> [Token] {
        var tokens: [Token] = []
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-"
        }
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar.properties.isWhitespace {
                index += 1
                continue
            }
            if scalar == "#" || scalar == ":" {
                var end = index + 1
                while end < scalars.count, isNameCharacter(scalars[end]) { end += 1 }
                guard end > index + 1 else { throw syntaxError(kind, String(scalar), text) }
                let word = String(String.UnicodeScalarView(scalars[index..<end]))
                tokens.append(scalar == "#" ? .name(word) : .value(word))
                index = end
                continue
            }
            if ("0"..."9").contains(scalar) {
                var end = index
                while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
                let word = String(String.UnicodeScalarView(scalars[index..<end]))
                guard let number = Int(word), number <= 1_000_000 else { throw syntaxError(kind, word, text) }
                tokens.append(.number(number))
                index = end
                continue
            }
            if scalar.properties.isAlphabetic || scalar == "_" {
                var end = index
                while end < scalars.count,
                    scalars[end].properties.isAlphabetic || ("0"..."9").contains(scalars[end]) || scalars[end] == "_"
                {
                    end += 1
                }
                tokens.append(.identifier(String(String.UnicodeScalarView(scalars[index..<end]))))
                index = end
                continue
            }
            let next = index + 1 < scalars.count ? scalars[index + 1] : " "
            switch (scalar, next) {
            case ("<", ">"), ("<", "="), (">", "="):
                tokens.append(.symbol(String(scalar) + String(next)))
                index += 2
            case ("=", _), ("<", _), (">", _), ("(", _), (")", _), (",", _), (".", _), ("[", _), ("]", _), ("+", _),
                ("-", _):
                tokens.append(.symbol(String(scalar)))
                index += 1
            default:
                throw syntaxError(kind, String(scalar), text)
            }
        }
        tokens.append(.end)
        return tokens
    }

    static func syntaxError(_ kind: String, _ token: String, _ text: String) -> TableError {
        TableError(.validation, "Invalid \(kind): Syntax error; token: \"\(token)\", near: \"\(text.prefix(60))\"")
    }
}
