import Foundation
import SingleTable

/// An item's size as DynamoDB counts it for capacity units (Amazon DynamoDB Developer Guide,
/// "DynamoDB item sizes and formats", CapacityUnitCalculations.html): the sum of its attribute
/// names' and values' lengths.
///
/// - A string: its UTF-8 bytes. A binary: its raw bytes.
/// - A number: one byte per two significant digits (leading and trailing zeros trimmed), plus one.
/// - A Boolean or null: one byte.
/// - A list or map: 3 bytes, plus one byte and the size of each element (a map's element names
///   included).
/// - A set: the sum of its elements' sizes.
package enum ItemSize {
    /// The size of an item, in bytes.
    package static func of(_ item: Item) -> Int {
        item.reduce(0) { $0 + $1.key.utf8.count + of($1.value) }
    }

    /// The size of one value, in bytes (its name not included).
    package static func of(_ value: AttributeValue) -> Int {
        switch value {
        case .s(let text): text.utf8.count
        case .b(let data): data.count
        case .n(let number): of(number)
        case .bool, .null: 1
        case .l(let list): 3 + list.reduce(0) { $0 + 1 + of($1) }
        case .m(let map): 3 + map.reduce(0) { $0 + 1 + $1.key.utf8.count + of($1.value) }
        case .ss(let texts): texts.reduce(0) { $0 + $1.utf8.count }
        case .ns(let numbers): numbers.reduce(0) { $0 + of($1) }
        case .bs(let blobs): blobs.reduce(0) { $0 + $1.count }
        }
    }

    /// A number's size: its significant digits, two to a byte, plus one byte.
    package static func of(_ number: Number) -> Int {
        var digits = number.description.prefix { $0 != "e" && $0 != "E" }.filter(\.isNumber)
        while digits.first == "0" { digits.removeFirst() }
        while digits.last == "0" { digits.removeLast() }
        return (max(digits.count, 1) + 1) / 2 + 1
    }
}

/// Request units as on-demand DynamoDB charges them (Developer Guide, "DynamoDB read and write
/// operations", read-write-operations.html): a write unit per 1 KB of item, a read unit per 4 KB
/// read strongly consistent (half one eventually consistent), both rounded up, and twice as many
/// in a transaction.
package enum RequestUnits {
    /// Write units for an item of `bytes` bytes (at least one).
    package static func write(bytes: Int, transactional: Bool = false) -> Int {
        max(1, (bytes + 1023) / 1024) * (transactional ? 2 : 1)
    }

    /// Read units for `bytes` bytes read in one request (at least one 4 KB step).
    package static func read(bytes: Int, consistent: Bool) -> Double {
        let steps = Double(max(1, (bytes + 4095) / 4096))
        return consistent ? steps : steps / 2
    }
}
