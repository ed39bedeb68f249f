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
        if case .identifier(let word) = current, peek == .symbol("(") {
            switch word.lowercased() {
            case "attribute_exists":
                advance()
                advance()
                let path = try parsePath()
                try expect(.symbol(")"))
                return .attributeExists(path)
            case "attribute_not_exists":
                advance()
                advance()
                let path = try parsePath()
                try expect(.symbol(")"))
                return .attributeNotExists(path)
            case "attribute_type":
                advance()
                advance()
                let path = try parsePath()
                try expect(.symbol(","))
                let type = try parseOperand()
                try expect(.symbol(")"))
                return .attributeType(path, type)
            case "begins_with", "contains":
                advance()
                advance()
                let subject = try parseOperand()
                try expect(.symbol(","))
                let argument = try parseOperand()
                try expect(.symbol(")"))
                return word.lowercased() == "contains" ? .contains(subject, argument) : .beginsWith(subject, argument)
            case "size":
                break
            default:
                throw TableError(.validation, "Invalid \(kind): Invalid function name; function: \(word)")
            }
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
        case .value(let placeholder):
            advance()
            values.insert(placeholder)
            return .value(placeholder)
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
        var elements: [PathElement] = []
        switch current {
        case .identifier(let word):
            if ["AND", "OR", "NOT", "BETWEEN", "IN"].contains(word.uppercased()) { throw unexpected() }
            try checkReserved(word)
            elements.append(.name(word))
        case .name(let placeholder):
            names.insert(placeholder)
            elements.append(.name(placeholder))
        default:
            throw unexpected()
        }
        advance()
        while true {
            if accept(.symbol(".")) {
                switch current {
                case .identifier(let word):
                    try checkReserved(word)
                    elements.append(.name(word))
                case .name(let placeholder):
                    names.insert(placeholder)
                    elements.append(.name(placeholder))
                default: throw unexpected()
                }
                advance()
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
        if case .value(let placeholder) = current {
            advance()
            values.insert(placeholder)
            return .value(placeholder)
        }
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
