/// A recursive-descent parser for condition, filter, key-condition, update and projection
/// expressions.
struct ExpressionParser {
    typealias Token = ExpressionLexer.Token

    private let tokens: [Token]
    private let text: String
    private let kind: String
    private var position = 0
    private var names: Set<String> = []
    private var values: Set<String> = []
    private var depth = 0

    private init(_ text: String, kind: String) throws(TableError) {
        self.text = text
        self.kind = kind
        tokens = try ExpressionLexer.tokens(text, kind: kind)
        guard tokens.count > 1 else {
            throw TableError(.validation, "Invalid \(kind): The expression can not be empty;")
        }
    }

    /// Parses a condition or filter expression.
    static func condition(_ text: String, kind: String = "ConditionExpression") throws(TableError) -> Parsed<Condition>
    {
        var parser = try ExpressionParser(text, kind: kind)
        let tree = try parser.parseOr()
        try parser.expectEnd()
        return Parsed(tree: tree, names: parser.names, values: parser.values)
    }

    /// Parses an update expression.
    static func update(_ text: String) throws(TableError) -> Parsed<UpdateActions> {
        var parser = try ExpressionParser(text, kind: "UpdateExpression")
        let tree = try parser.parseUpdate()
        return Parsed(tree: tree, names: parser.names, values: parser.values)
    }

    /// Parses a projection expression.
    static func projection(_ text: String) throws(TableError) -> Parsed<[DocumentPath]> {
        var parser = try ExpressionParser(text, kind: "ProjectionExpression")
        var paths = [try parser.parsePath()]
        while parser.accept(.symbol(",")) { paths.append(try parser.parsePath()) }
        try parser.expectEnd()
        return Parsed(tree: paths, names: parser.names, values: parser.values)
    }

    // MARK: - Conditions

    private mutating func parseOr() throws(TableError) -> Condition {
        depth += 1
        defer { depth -= 1 }
        guard depth < 100 else { throw TableError(.validation, "Invalid \(kind): The expression is nested too deeply") }
        var left = try parseAnd()
        while current.isKeyword("OR") {
            advance()
            left = .or(left, try parseAnd())
        }
        return left
    }

    private mutating func parseAnd() throws(TableError) -> Condition {
        var left = try parseNot()
        while current.isKeyword("AND") {
            advance()
            left = .and(left, try parseNot())
        }
        return left
    }

    private mutating func parseNot() throws(TableError) -> Condition {
        if current.isKeyword("NOT") {
            advance()
            depth += 1
            defer { depth -= 1 }
            guard depth < 100 else {
                throw TableError(.validation, "Invalid \(kind): The expression is nested too deeply")
            }
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws(TableError) -> Condition {
        if accept(.symbol("(")) {
            let inner = try parseOr()
            try expect(.symbol(")"))
            return inner
        }
        if case .identifier(let word) = current, peek == .symbol("("), word.lowercased() != "size" {
            let function = word.lowercased()
            guard
                ["attribute_exists", "attribute_not_exists", "attribute_type", "begins_with", "contains"]
                    .contains(function)
            else { throw TableError(.validation, "Invalid \(kind): Invalid function name; function: \(word)") }
            advance()
            advance()
            let condition: Condition
            switch function {
            case "attribute_exists": condition = .attributeExists(try parsePath())
            case "attribute_not_exists": condition = .attributeNotExists(try parsePath())
            case "attribute_type":
                let path = try parsePath()
                try expect(.symbol(","))
                condition = .attributeType(path, try parseOperand())
            default:
                let subject = try parseOperand()
                try expect(.symbol(","))
                let argument = try parseOperand()
                condition = function == "contains" ? .contains(subject, argument) : .beginsWith(subject, argument)
            }
            try expect(.symbol(")"))
            return condition
        }
        let left = try parseOperand()
        if case .symbol(let symbol) = current, let comparator = Comparator(rawValue: symbol) {
            advance()
            return .compare(left, comparator, try parseOperand())
        }
        if current.isKeyword("BETWEEN") {
            advance()
            let low = try parseOperand()
            guard current.isKeyword("AND") else { throw unexpected() }
            advance()
            return .between(left, low, try parseOperand())
        }
        if current.isKeyword("IN") {
            advance()
            try expect(.symbol("("))
            var list = [try parseOperand()]
            while accept(.symbol(",")) { list.append(try parseOperand()) }
            try expect(.symbol(")"))
            guard list.count <= 100 else { throw TableError(.validation, "Invalid \(kind): The IN list is too long") }
            return .among(left, list)
        }
        throw unexpected()
    }

    private mutating func parseOperand() throws(TableError) -> Operand {
        switch current {
        case .value:
            return try parseValueOnly()
        case .identifier(let word) where word.lowercased() == "size" && peek == .symbol("("):
            advance()
            advance()
            let path = try parsePath()
            try expect(.symbol(")"))
            return .size(path)
        default:
            return .path(try parsePath())
        }
    }

    private mutating func parsePath() throws(TableError) -> DocumentPath {
        if case .identifier(let word) = current, ["AND", "OR", "NOT", "BETWEEN", "IN"].contains(word.uppercased()) {
            throw unexpected()
        }
        var elements = [try parsePathName()]
        while true {
            if accept(.symbol(".")) {
                elements.append(try parsePathName())
            } else if accept(.symbol("[")) {
                guard case .number(let index) = current else { throw unexpected() }
                advance()
                try expect(.symbol("]"))
                elements.append(.index(index))
            } else {
                return DocumentPath(elements: elements)
            }
        }
    }

    /// A path's name: a literal that is not a reserved word, or a `#placeholder`.
    private mutating func parsePathName() throws(TableError) -> PathElement {
        switch current {
        case .identifier(let word): try checkReserved(word)
        case .name(let placeholder): names.insert(placeholder)
        default: throw unexpected()
        }
        defer { advance() }
        return .name(current.text)
    }

    // MARK: - Updates

    private mutating func parseUpdate() throws(TableError) -> UpdateActions {
        var actions = UpdateActions()
        var seen: Set<String> = []
        while current != .end {
            guard case .identifier(let word) = current else { throw unexpected() }
            let clause = word.uppercased()
            guard ["SET", "REMOVE", "ADD", "DELETE"].contains(clause) else { throw unexpected() }
            guard seen.insert(clause).inserted else {
                throw TableError(
                    .validation,
                    "Invalid UpdateExpression: The \"\(clause)\" section can only be used once in an update expression;"
                )
            }
            advance()
            repeat {
                let path = try parsePath()
                switch clause {
                case "SET":
                    try expect(.symbol("="))
                    actions.set.append((path, try parseSetValue()))
                case "REMOVE":
                    actions.remove.append(path)
                case "ADD":
                    actions.add.append((path, try parseValueOnly()))
                default:
                    actions.delete.append((path, try parseValueOnly()))
                }
            } while accept(.symbol(","))
        }
        return actions
    }

    private mutating func parseValueOnly() throws(TableError) -> Operand {
        guard case .value(let placeholder) = current else { throw unexpected() }
        advance()
        values.insert(placeholder)
        return .value(placeholder)
    }

    private mutating func parseSetValue() throws(TableError) -> Operand {
        let left = try parseSetTerm()
        if accept(.symbol("+")) { return .plus(left, try parseSetTerm()) }
        if accept(.symbol("-")) { return .minus(left, try parseSetTerm()) }
        return left
    }

    private mutating func parseSetTerm() throws(TableError) -> Operand {
        if case .identifier(let word) = current, peek == .symbol("(") {
            switch word.lowercased() {
            case "if_not_exists":
                advance()
                advance()
                let path = try parsePath()
                try expect(.symbol(","))
                let fallback = try parseSetTerm()
                try expect(.symbol(")"))
                return .ifNotExists(path, fallback)
            case "list_append":
                advance()
                advance()
                let first = try parseSetTerm()
                try expect(.symbol(","))
                let second = try parseSetTerm()
                try expect(.symbol(")"))
                return .listAppend(first, second)
            default:
                throw TableError(.validation, "Invalid UpdateExpression: Invalid function name; function: \(word)")
            }
        }
        if case .value = current { return try parseValueOnly() }
        return .path(try parsePath())
    }

    // MARK: - Tokens

    private var current: Token { tokens[position] }
    private var peek: Token { position + 1 < tokens.count ? tokens[position + 1] : .end }

    private mutating func advance() {
        if position < tokens.count - 1 { position += 1 }
    }

    private mutating func accept(_ token: Token) -> Bool {
        guard current == token else { return false }
        advance()
        return true
    }

    private mutating func expect(_ token: Token) throws(TableError) {
        guard accept(token) else { throw unexpected() }
    }

    private func expectEnd() throws(TableError) {
        guard current == .end else { throw unexpected() }
    }

    private func checkReserved(_ word: String) throws(TableError) {
        guard ReservedWords.contains(word) else { return }
        throw TableError(
            .validation, "Invalid \(kind): Attribute name is a reserved keyword; reserved keyword: \(word)")
    }

    private func unexpected() -> TableError {
        ExpressionLexer.syntaxError(kind, current.text, text)
    }
}
