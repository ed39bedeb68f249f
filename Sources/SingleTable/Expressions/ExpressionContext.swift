/// The placeholder values an expression is evaluated with.
struct ExpressionContext {
    let names: [String: String]
    let values: [String: AttributeValue]

    /// An element's attribute name: `#placeholder` resolved, a literal as it is.
    func name(_ element: String) throws(TableError) -> String {
        guard element.hasPrefix("#") else { return element }
        guard let resolved = names[element] else {
            throw TableError(
                .validation,
                "Invalid expression: An expression attribute name used in the document path is not defined; attribute name: \(element)"
            )
        }
        return resolved
    }

    /// A `:placeholder`'s value.
    func value(_ placeholder: String) throws(TableError) -> AttributeValue {
        guard let value = values[placeholder] else {
            throw TableError(
                .validation,
                "Invalid expression: An expression attribute value used in expression is not defined; attribute value: \(placeholder)"
            )
        }
        return value
    }

    /// A path's steps with names resolved.
    func resolve(_ path: DocumentPath) throws(TableError) -> [ResolvedStep] {
        var steps: [ResolvedStep] = []
        steps.reserveCapacity(path.elements.count)
        for element in path.elements {
            switch element {
            case .name(let raw): steps.append(.key(try name(raw)))
            case .index(let index): steps.append(.index(index))
            }
        }
        return steps
    }

    /// Checks that every placeholder the request provides is used by one of its expressions
    /// (`nil` for an expression it does not have), and every one they use is provided.
    static func checkPlaceholders(
        used expressions: [Placeholders?],
        names: [String: String],
        values: [String: AttributeValue]
    ) throws(TableError) {
        // The usual case, without building unions: each placeholder the expressions use is
        // provided, and as many are provided as are used, so none is unused. Kept because it pays:
        // in a profile of `inkra-benchmarks --only consume` (perf, cpu-clock, 2026-11-25) this
        // check is 4% of the samples with it, 13% with the plain unions below alone, and 11% with
        // a plain lookup of each provided placeholder in each expression.
        if usesExactly(values, expressions, \.values) && usesExactly(names, expressions, \.names) {
            return
        }
        let used = expressions.compactMap { $0 }
        let usedNames = used.reduce(into: Set<String>()) { $0.formUnion($1.names) }
        let usedValues = used.reduce(into: Set<String>()) { $0.formUnion($1.values) }
        let unusedValues = Set(values.keys).subtracting(usedValues)
        if !unusedValues.isEmpty {
            throw TableError(
                .validation,
                "Value provided in ExpressionAttributeValues unused in expressions: keys: {\(unusedValues.sorted().joined(separator: ", "))}"
            )
        }
        let unusedNames = Set(names.keys).subtracting(usedNames)
        if !unusedNames.isEmpty {
            throw TableError(
                .validation,
                "Value provided in ExpressionAttributeNames unused in expressions: keys: {\(unusedNames.sorted().joined(separator: ", "))}"
            )
        }
        if let missing = usedValues.subtracting(values.keys).sorted().first {
            throw TableError(
                .validation,
                "Invalid expression: An expression attribute value used in expression is not defined; attribute value: \(missing)"
            )
        }
        if let missing = usedNames.subtracting(names.keys).sorted().first {
            throw TableError(
                .validation,
                "Invalid expression: An expression attribute name used in the document path is not defined; attribute name: \(missing)"
            )
        }
    }

    /// Whether the placeholders the expressions use, together, are exactly the provided keys:
    /// each used one provided, and as many distinct used ones as provided keys.
    private static func usesExactly<Value>(
        _ provided: [String: Value], _ expressions: [Placeholders?], _ kind: (Placeholders) -> Set<String>
    ) -> Bool {
        var distinct = 0
        var first: Set<String> = []
        var present = 0
        for expression in expressions {
            guard let expression else { continue }
            let used = kind(expression)
            for placeholder in used where !provided.keys.contains(placeholder) { return false }
            present += 1
            switch present {
            case 1:
                first = used
                distinct = used.count
            case 2:
                // Placeholders the first expression used too are counted once, the overlap found
                // from the smaller side: for a condition beside an update, a lookup or two.
                let (small, large) = first.count < used.count ? (first, used) : (used, first)
                distinct += used.count - small.count(where: large.contains)
            default:
                // Three (a query's key condition, filter and projection): the union, counted.
                distinct =
                    expressions.reduce(into: Set<String>()) { union, expression in
                        if let expression { union.formUnion(kind(expression)) }
                    }.count
            }
        }
        return distinct == provided.count
    }
}

/// One step of a resolved document path.
enum ResolvedStep: Hashable {
    case key(String)
    case index(Int)
}
