/// Applies a projection expression: only the named paths of an item.
enum Projection {
    static func apply(_ paths: [DocumentPath]?, to item: Item, _ context: ExpressionContext) throws(TableError) -> Item
    {
        guard let paths else { return item }
        var result: Item = [:]
        for path in paths {
            let steps = try context.resolve(path)
            guard case .key(let top)? = steps.first, let value = item[top] else { continue }
            if steps.count == 1 {
                result[top] = value
                continue
            }
            guard let nested = project(value, steps.dropFirst()) else { continue }
            result[top] = merge(result[top], nested)
        }
        return result
    }

    private static func project(_ value: AttributeValue, _ steps: ArraySlice<ResolvedStep>) -> AttributeValue? {
        guard let step = steps.first else { return value }
        switch (step, value) {
        case (.key(let key), .m(let map)):
            guard let child = map[key], let inner = project(child, steps.dropFirst()) else { return nil }
            return .m([key: inner])
        case (.index(let index), .l(let list)):
            guard index < list.count, let inner = project(list[index], steps.dropFirst()) else { return nil }
            return .l([inner])
        default:
            return nil
        }
    }

    private static func merge(_ existing: AttributeValue?, _ addition: AttributeValue) -> AttributeValue {
        switch (existing, addition) {
        case (.m(let a)?, .m(let b)):
            var merged = a
            for (key, value) in b { merged[key] = merge(a[key], value) }
            return .m(merged)
        case (.l(let a)?, .l(let b)):
            return .l(a + b)
        default:
            return addition
        }
    }
}
