/// One DynamoDB attribute value, with DynamoDB's ten types.
///
/// Sets keep their elements unique; their order carries no meaning, so two sets with the same
/// elements compare equal.
package enum AttributeValue: Sendable {
    /// A string (`S`).
    case s(String)
    /// A number (`N`), exact to 38 significant digits.
    case n(Number)
    /// Binary data (`B`).
    case b([UInt8])
    /// A Boolean (`BOOL`).
    case bool(Bool)
    /// The null value (`NULL`).
    case null
    /// A map of attribute values (`M`).
    case m([String: AttributeValue])
    /// A list of attribute values (`L`).
    case l([AttributeValue])
    /// A string set (`SS`).
    case ss([String])
    /// A number set (`NS`).
    case ns([Number])
    /// A binary set (`BS`).
    case bs([[UInt8]])
}

/// An item: attribute names to values.
package typealias Item = [String: AttributeValue]

extension AttributeValue {
    /// DynamoDB's name for the value's type: `S`, `N`, `B`, `BOOL`, `NULL`, `M`, `L`, `SS`, `NS` or `BS`.
    package var typeName: String {
        switch self {
        case .s: "S"
        case .n: "N"
        case .b: "B"
        case .bool: "BOOL"
        case .null: "NULL"
        case .m: "M"
        case .l: "L"
        case .ss: "SS"
        case .ns: "NS"
        case .bs: "BS"
        }
    }

    /// The string, when this is an `S` value.
    package var stringValue: String? {
        if case .s(let value) = self { return value }
        return nil
    }

    /// The number, when this is an `N` value.
    package var numberValue: Number? {
        if case .n(let value) = self { return value }
        return nil
    }

    /// The number as an `Int`, when this is an `N` value holding an integer that fits.
    package var intValue: Int? {
        numberValue.flatMap { Int(exactly: $0) }
    }

    /// A number value from an integer.
    package static func n(_ value: Int) -> AttributeValue {
        .n(Number(value))
    }
}

extension AttributeValue: Equatable {
    /// DynamoDB's equality: strings are equal when their UTF-8 bytes are (not by Swift's canonical
    /// equivalence, under which `é` and `e` followed by a combining accent are one string), and
    /// sets when they hold the same elements.
    package static func == (lhs: AttributeValue, rhs: AttributeValue) -> Bool {
        switch (lhs, rhs) {
        case (.s(let a), .s(let b)): sameBytes(a, b)
        case (.n(let a), .n(let b)): a == b
        case (.b(let a), .b(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.null, .null): true
        case (.m(let a), .m(let b)): a == b
        case (.l(let a), .l(let b)): a == b
        case (.ss(let a), .ss(let b)): byteSet(a) == byteSet(b)
        case (.ns(let a), .ns(let b)): Set(a) == Set(b)
        case (.bs(let a), .bs(let b)): Set(a) == Set(b)
        default: false
        }
    }

    /// Whether two strings are the same bytes of UTF-8.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && byteOrder(a, b) == 0
    }

    /// -1, 0 or 1 as `a` sorts before, with or after `b` by their UTF-8 bytes, a prefix first.
    static func byteOrder(_ a: String, _ b: String) -> Int {
        var (a, b) = (a, b)
        return a.withUTF8 { x in
            b.withUTF8 { y in
                for index in 0..<min(x.count, y.count) where x[index] != y[index] {
                    return x[index] < y[index] ? -1 : 1
                }
                return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
            }
        }
    }

    /// A string set's elements by their bytes, which is how DynamoDB tells them apart.
    static func byteSet(_ strings: [String]) -> Set<[UInt8]> {
        Set(strings.map { Array($0.utf8) })
    }
}

extension AttributeValue: Hashable {
    /// Consistent with `==`: a string by its bytes, a set whatever its order. Values of different
    /// types are never equal, so their hashes need not differ.
    package func hash(into hasher: inout Hasher) {
        switch self {
        case .s(var value):
            hasher.combine(value.utf8.count)
            value.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .n(let value): hasher.combine(value)
        case .b(let value): hasher.combine(value)
        case .bool(let value): hasher.combine(value)
        case .null: break
        case .m(let value): hasher.combine(value)
        case .l(let value): hasher.combine(value)
        case .ss(let value): hasher.combine(Self.byteSet(value))
        case .ns(let value): hasher.combine(Set(value))
        case .bs(let value): hasher.combine(Set(value))
        }
    }
}
