import InkraJSON

/// Evaluates conditions and operands against an item, with DynamoDB's semantics: comparing values
/// of different types is false, not an error; a missing attribute makes a comparison false.
enum ConditionEvaluator {
    static func evaluate(_ condition: Condition, _ item: Item?, _ context: ExpressionContext) throws(TableError) -> Bool
    {
        switch condition {
        case .and(let left, let right):
            if try !evaluate(left, item, context) { return false }
            return try evaluate(right, item, context)
        case .or(let left, let right):
            if try evaluate(left, item, context) { return true }
            return try evaluate(right, item, context)
        case .not(let inner):
            return try !evaluate(inner, item, context)
        case .attributeExists(let path):
            return try attribute(at: path, in: item, context) != nil
        case .attributeNotExists(let path):
            return try attribute(at: path, in: item, context) == nil
        case .attributeType(let path, let type):
            guard case .s(let name)? = try operand(type, item, context) else {
                throw TableError(
                    .validation,
                    "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type"
                )
            }
            return try attribute(at: path, in: item, context)?.typeName == name
        case .beginsWith(let subject, let prefix):
            switch (try operand(subject, item, context), try operand(prefix, item, context)) {
            case (.s(let text)?, .s(let start)?): return text.utf8.starts(with: start.utf8)
            case (.b(let data)?, .b(let start)?): return data.starts(with: start)
            default: return false
            }
        case .contains(let subject, let element):
            guard let container = try operand(subject, item, context), let needle = try operand(element, item, context)
            else { return false }
            switch (container, needle) {
            case (.s(let text), .s(let part)): return part.isEmpty || text.utf8.firstRange(ofPart: part.utf8) != nil
            case (.b(let data), .b(let part)): return part.isEmpty || data.firstRange(ofPart: part) != nil
            case (.ss(let set), .s(let value)): return set.contains { AttributeValue.sameBytes($0, value) }
            case (.ns(let set), .n(let value)): return set.contains(value)
            case (.bs(let set), .b(let value)): return set.contains(value)
            case (.l(let list), _): return list.contains(needle)
            default: return false
            }
        case .compare(let left, let comparator, let right):
            let a = try operand(left, item, context)
            let b = try operand(right, item, context)
            guard let a, let b else { return comparator == .notEqual && !(a == nil && b == nil) }
            switch comparator {
            case .equal: return a == b
            case .notEqual: return a != b
            case .less: return order(a, b).map { $0 < 0 } ?? false
            case .lessOrEqual: return order(a, b).map { $0 <= 0 } ?? false
            case .greater: return order(a, b).map { $0 > 0 } ?? false
            case .greaterOrEqual: return order(a, b).map { $0 >= 0 } ?? false
            }
        case .between(let subject, let low, let high):
            guard let value = try operand(subject, item, context), let lower = try operand(low, item, context),
                let upper = try operand(high, item, context)
            else { return false }
            if let bounds = order(lower, upper), bounds > 0 {
                throw TableError(
                    .validation,
                    "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound"
                )
            }
            guard let above = order(value, lower), let below = order(value, upper) else { return false }
            return above >= 0 && below <= 0
        case .among(let subject, let list):
            guard let value = try operand(subject, item, context) else { return false }
            for candidate in list where try operand(candidate, item, context) == value { return true }
            return false
        }
    }

    /// An operand's value, or `nil` when it names a missing attribute.
    static func operand(_ operand: Operand, _ item: Item?, _ context: ExpressionContext) throws(TableError)
        -> AttributeValue?
    {
        switch operand {
        case .value(let placeholder):
            return try context.value(placeholder)
        case .path(let path):
            return try attribute(at: path, in: item, context)
        case .size(let path):
            guard let value = try attribute(at: path, in: item, context) else { return nil }
            switch value {
            case .s(let text): return .n(Number(text.unicodeScalars.count))
            case .b(let data): return .n(Number(data.count))
            case .ss(let set): return .n(Number(set.count))
            case .ns(let set): return .n(Number(set.count))
            case .bs(let set): return .n(Number(set.count))
            case .l(let list): return .n(Number(list.count))
            case .m(let map): return .n(Number(map.count))
            default:
                throw TableError(
                    .validation,
                    "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: \(value.typeName)"
                )
            }
        case .ifNotExists(let path, let fallback):
            if let value = try attribute(at: path, in: item, context) { return value }
            return try self.operand(fallback, item, context)
        case .listAppend(let first, let second):
            guard case .l(let a)? = try self.operand(first, item, context),
                case .l(let b)? = try self.operand(second, item, context)
            else { throw TableError(.validation, "An operand in the update expression has an incorrect data type") }
            return .l(a + b)
        case .plus(let left, let right), .minus(let left, let right):
            guard case .n(let a)? = try self.operand(left, item, context),
                case .n(let b)? = try self.operand(right, item, context)
            else { throw TableError(.validation, "An operand in the update expression has an incorrect data type") }
            if case .plus = operand { return .n(try a.adding(b)) }
            return .n(try a.subtracting(b))
        }
    }

    /// The attribute at a path, or `nil`; a path of one name (the usual case) is read without
    /// building its steps.
    static func attribute(at path: DocumentPath, in item: Item?, _ context: ExpressionContext) throws(TableError)
        -> AttributeValue?
    {
        if path.elements.count == 1, case .name(let raw) = path.elements[0] {
            let name = try context.name(raw)
            return item?[name]
        }
        return lookup(try context.resolve(path), item)
    }

    /// The value at a resolved path, or `nil`.
    static func lookup(_ steps: [ResolvedStep], _ item: Item?) -> AttributeValue? {
        guard let item, case .key(let first)? = steps.first, var current = item[first] else { return nil }
        for step in steps.dropFirst() {
            switch (step, current) {
            case (.key(let key), .m(let map)):
                guard let next = map[key] else { return nil }
                current = next
            case (.index(let index), .l(let list)):
                guard index < list.count else { return nil }
                current = list[index]
            default:
                return nil
            }
        }
        return current
    }

    /// -1, 0, 1 for two values of the same ordered type (N, S, B); `nil` when they cannot be ordered.
    static func order(_ a: AttributeValue, _ b: AttributeValue) -> Int? {
        switch (a, b) {
        case (.n(let x), .n(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.s(let x), .s(let y)): return AttributeValue.byteOrder(x, y)
        case (.b(let x), .b(let y)):
            if x == y { return 0 }
            return x.lexicographicallyPrecedes(y) ? -1 : 1
        default: return nil
        }
    }
}
