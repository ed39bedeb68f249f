/// An update expression's actions with their paths resolved and checked: everything about the
/// update that does not depend on the item, worked out before the table is locked.
///
/// A class: the expression cache's plan is shared by every write of its text, and a write holds it
/// with one retain where a copy of the struct was four.
final class UpdatePlan: Sendable {
    let set: [([ResolvedStep], Operand)]
    let remove: [[ResolvedStep]]
    let add: [([ResolvedStep], Operand)]
    let delete: [([ResolvedStep], Operand)]

    init(
        set: [([ResolvedStep], Operand)], remove: [[ResolvedStep]], add: [([ResolvedStep], Operand)],
        delete: [([ResolvedStep], Operand)]
    ) {
        self.set = set
        self.remove = remove
        self.add = add
        self.delete = delete
    }
}

/// Applies an update expression's actions to an item.
enum UpdateApplier {
    /// Resolves the actions' paths and checks them as DynamoDB does before it reads the item:
    /// each path names a top-level attribute, no key attribute is updated, no two paths overlap.
    /// - Throws: ``TableError`` `ValidationException` naming the problem.
    static func plan(
        _ actions: UpdateActions, keyNames: Set<String>, _ context: ExpressionContext
    ) throws(TableError) -> UpdatePlan {
        var paths: [[ResolvedStep]] = []
        func resolve(_ path: DocumentPath) throws(TableError) -> [ResolvedStep] {
            let steps = try context.resolve(path)
            guard case .key(let top)? = steps.first else {
                throw TableError(.validation, "Invalid UpdateExpression: The document path is invalid")
            }
            if keyNames.contains(top) {
                throw TableError(.validation, "Cannot update attribute \(top). This attribute is part of the key")
            }
            for other in paths where other.starts(with: steps) || steps.starts(with: other) {
                throw TableError(
                    .validation,
                    "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths"
                )
            }
            paths.append(steps)
            return steps
        }
        var set: [([ResolvedStep], Operand)] = []
        var remove: [[ResolvedStep]] = []
        var add: [([ResolvedStep], Operand)] = []
        var delete: [([ResolvedStep], Operand)] = []
        for (path, value) in actions.set { set.append((try resolve(path), value)) }
        for path in actions.remove { remove.append(try resolve(path)) }
        for (path, value) in actions.add { add.append((try resolve(path), value)) }
        for (path, value) in actions.delete { delete.append((try resolve(path), value)) }
        return UpdatePlan(set: set, remove: remove, add: add, delete: delete)
    }

    /// Applies a planned update; every operand reads the item as it was before the update.
    /// - Throws: ``TableError`` for wrong operand types or paths the item does not have.
    static func apply(_ plan: UpdatePlan, to item: inout Item, _ context: ExpressionContext) throws(TableError) {
        let original = item
        for (steps, value) in plan.set {
            guard let newValue = try ConditionEvaluator.operand(value, original, context) else {
                throw TableError(
                    .validation,
                    "The provided expression refers to an attribute that does not exist in the item"
                )
            }
            try write(newValue, at: steps, in: &item)
        }
        for steps in plan.remove {
            remove(at: steps, in: &item)
        }
        for (steps, value) in plan.add {
            let increment = try ConditionEvaluator.operand(value, original, context)
            let existing = ConditionEvaluator.lookup(steps, original)
            let result: AttributeValue
            switch (existing, increment) {
            case (nil, .n(let number)?): result = .n(number)
            case (nil, .ss(let set)?): result = .ss(set)
            case (nil, .ns(let set)?): result = .ns(set)
            case (nil, .bs(let set)?): result = .bs(set)
            case (.n(let a)?, .n(let b)?): result = .n(try a.adding(b))
            case (.ss(let a)?, .ss(let b)?): result = .ss(union(a, b) { Array($0.utf8) })
            case (.ns(let a)?, .ns(let b)?): result = .ns(union(a, b) { $0 })
            case (.bs(let a)?, .bs(let b)?): result = .bs(union(a, b) { $0 })
            default:
                throw TableError(.validation, "An operand in the update expression has an incorrect data type")
            }
            try write(result, at: steps, in: &item)
        }
        for (steps, value) in plan.delete {
            let subset = try ConditionEvaluator.operand(value, original, context)
            let existing = ConditionEvaluator.lookup(steps, original)
            let result: AttributeValue?
            switch (existing, subset) {
            case (nil, .ss?), (nil, .ns?), (nil, .bs?): continue
            case (.ss(let a)?, .ss(let b)?):
                let removed = AttributeValue.byteSet(b)
                let kept = a.filter { !removed.contains(Array($0.utf8)) }
                result = kept.isEmpty ? nil : .ss(kept)
            case (.ns(let a)?, .ns(let b)?):
                result = a.filter { !b.contains($0) }.isEmpty ? nil : .ns(a.filter { !b.contains($0) })
            case (.bs(let a)?, .bs(let b)?):
                result = a.filter { !b.contains($0) }.isEmpty ? nil : .bs(a.filter { !b.contains($0) })
            default:
                throw TableError(.validation, "An operand in the update expression has an incorrect data type")
            }
            if let result { try write(result, at: steps, in: &item) } else { remove(at: steps, in: &item) }
        }
    }

    /// `a` followed by the elements of `b` it lacks, elements being the same when their `identity` is
    /// (a string's UTF-8 bytes, as DynamoDB compares them).
    private static func union<T, Identity: Hashable>(_ a: [T], _ b: [T], identity: (T) -> Identity) -> [T] {
        var seen = Set(a.map(identity))
        var result = a
        for element in b where seen.insert(identity(element)).inserted { result.append(element) }
        return result
    }

    private static func write(_ value: AttributeValue, at steps: [ResolvedStep], in item: inout Item) throws(TableError)
    {
        guard case .key(let top) = steps[0] else { return }
        if steps.count == 1 {
            item[top] = value
            return
        }
        guard var container = item[top] else { throw invalidPath() }
        try write(value, at: steps.dropFirst(), in: &container)
        item[top] = container
    }

    private static func write(
        _ value: AttributeValue, at steps: ArraySlice<ResolvedStep>, in container: inout AttributeValue
    )
        throws(TableError)
    {
        guard let step = steps.first else {
            container = value
            return
        }
        switch (step, container) {
        case (.key(let key), .m(var map)):
            if steps.count == 1 {
                map[key] = value
            } else {
                guard var child = map[key] else { throw invalidPath() }
                try write(value, at: steps.dropFirst(), in: &child)
                map[key] = child
            }
            container = .m(map)
        case (.index(let index), .l(var list)):
            if steps.count == 1 {
                if index < list.count { list[index] = value } else { list.append(value) }
            } else {
                guard index < list.count else { throw invalidPath() }
                try write(value, at: steps.dropFirst(), in: &list[index])
            }
            container = .l(list)
        default:
            throw invalidPath()
        }
    }

    private static func remove(at steps: [ResolvedStep], in item: inout Item) {
        guard case .key(let top) = steps[0] else { return }
        if steps.count == 1 {
            item[top] = nil
            return
        }
        guard var container = item[top] else { return }
        remove(at: steps.dropFirst(), in: &container)
        item[top] = container
    }

    private static func remove(at steps: ArraySlice<ResolvedStep>, in container: inout AttributeValue) {
        guard let step = steps.first else { return }
        switch (step, container) {
        case (.key(let key), .m(var map)):
            if steps.count == 1 {
                map[key] = nil
            } else if var child = map[key] {
                remove(at: steps.dropFirst(), in: &child)
                map[key] = child
            }
            container = .m(map)
        case (.index(let index), .l(var list)):
            guard index < list.count else { return }
            if steps.count == 1 { list.remove(at: index) } else { remove(at: steps.dropFirst(), in: &list[index]) }
            container = .l(list)
        default:
            return
        }
    }

    private static func invalidPath() -> TableError {
        TableError(.validation, "The document path provided in the update expression is invalid for update")
    }
}
