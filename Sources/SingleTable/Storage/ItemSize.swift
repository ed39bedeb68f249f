/// An item's size as DynamoDB counts it, for its 400 KB limit and for capacity units (Amazon
/// DynamoDB Developer Guide, "DynamoDB item sizes and formats", CapacityUnitCalculations.html):
/// the sum of its attribute names' and values' lengths.
///
/// - A string: its UTF-8 bytes. A binary: its raw bytes.
/// - A number: one byte per two significant digits (leading and trailing zeros trimmed), plus one.
/// - A Boolean or null: one byte.
/// - A list or map: 3 bytes, plus one byte and the size of each element (a map's element names
///   included).
/// - A set: the sum of its elements' sizes.
package enum ItemSize {
    /// The largest item DynamoDB stores.
    static let limit = 400 * 1024

    /// The size of an item, in bytes.
    package static func of(_ item: Item) -> Int {
        item.reduce(0) { $0 + $1.key.utf8.count + of($1.value) }
    }

    /// The size of one value, in bytes (its name not included).
    package static func of(_ value: AttributeValue) -> Int {
        switch value {
        case .s(let text): text.utf8.count
        case .n(let number): number.storageSize
        case .b(let data): data.count
        case .bool, .null: 1
        case .m(let map): 3 + map.reduce(0) { $0 + $1.key.utf8.count + of($1.value) + 1 }
        case .l(let list): 3 + list.reduce(0) { $0 + of($1) + 1 }
        case .ss(let set): set.reduce(0) { $0 + $1.utf8.count }
        case .ns(let set): set.reduce(0) { $0 + $1.storageSize }
        case .bs(let set): set.reduce(0) { $0 + $1.count }
        }
    }

    /// Checks the limit and the rules on values DynamoDB refuses (empty sets, duplicate set elements).
    static func validate(_ item: Item) throws(TableError) {
        // One pass: the usual item holds scalars only, which need their size and nothing else.
        var size = 0
        var hasContainers = false
        for (name, value) in item {
            size += name.utf8.count + of(value)
            switch value {
            case .s, .n, .b, .bool, .null: break
            default: hasContainers = true
            }
        }
        guard size <= limit else {
            throw TableError(.validation, "Item size has exceeded the maximum allowed size")
        }
        if hasContainers {
            for value in item.values { try validate(value) }
        }
    }

    private static func validate(_ value: AttributeValue) throws(TableError) {
        switch value {
        case .ss(let set):
            guard !set.isEmpty else { throw emptySet() }
            guard AttributeValue.byteSet(set).count == set.count else { throw duplicates() }
        case .ns(let set):
            guard !set.isEmpty else { throw emptySet() }
            guard Set(set).count == set.count else { throw duplicates() }
        case .bs(let set):
            guard !set.isEmpty else { throw emptySet() }
            guard Set(set).count == set.count else { throw duplicates() }
        case .m(let map):
            for element in map.values { try validate(element) }
        case .l(let list):
            for element in list { try validate(element) }
        default:
            break
        }
    }

    private static func emptySet() -> TableError {
        TableError(.validation, "One or more parameter values were invalid: A set may not be empty")
    }

    private static func duplicates() -> TableError {
        TableError(.validation, "One or more parameter values were invalid: Input collection contains duplicates")
    }
}
