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

    /// Checks the placeholders of a write's two expressions (condition and update) together:
    /// every one provided is used by one of them, and every one they use is provided.
    static func checkPlaceholders(
        used first: (names: Set<String>, values: Set<String>)?,
        _ second: (names: Set<String>, values: Set<String>)?,
        names: [String: String],
        values: [String: AttributeValue]
    ) throws(TableError) {
        guard let first, let second else {
            let only = first ?? second
            try checkPlaceholders(
                usedNames: only?.names ?? [], usedValues: only?.values ?? [], names: names, values: values)
            return
        }
        // The usual case, without building the union: each provided placeholder used by one of
        // the expressions, and each one they use provided.
        if values.keys.allSatisfy({ first.values.contains($0) || second.values.contains($0) })
            && names.keys.allSatisfy({ first.names.contains($0) || second.names.contains($0) })
            && first.values.allSatisfy({ values[$0] != nil }) && second.values.allSatisfy({ values[$0] != nil })
            && first.names.allSatisfy({ names[$0] != nil }) && second.names.allSatisfy({ names[$0] != nil })
        {
            return
        }
        try checkPlaceholders(
            usedNames: first.names.union(second.names),
            usedValues: first.values.union(second.values),
            names: names,
            values: values
        )
    }

    /// Checks that every placeholder the request provides is used, and every used one provided.
    static func checkPlaceholders(
        usedNames: Set<String>,
        usedValues: Set<String>,
        names: [String: String],
        values: [String: AttributeValue]
    ) throws(TableError) {
        // The usual case, without building sets: as many provided as used, and each used one
        // provided, means the two sets are equal.
        if values.count == usedValues.count, names.count == usedNames.count,
            usedValues.allSatisfy({ values[$0] != nil }), usedNames.allSatisfy({ names[$0] != nil })
        {
            return
        }
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
}

/// One step of a resolved document path.
enum ResolvedStep: Hashable {
    case key(String)
    case index(Int)
}
