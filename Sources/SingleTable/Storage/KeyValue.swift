/// A key attribute's value (S, N or B), ordered as DynamoDB orders sort keys: strings by UTF-8
/// bytes, numbers by value, binary by bytes.
///
/// Two strings are the same key only when their bytes are, as in DynamoDB: Swift's `==` on
/// `String` would make `é` and `e` followed by a combining accent one key.
struct KeyValue: Hashable, Comparable, Sendable {
    let value: AttributeValue

    static func < (lhs: KeyValue, rhs: KeyValue) -> Bool {
        (ConditionEvaluator.order(lhs.value, rhs.value) ?? (lhs.value.typeName < rhs.value.typeName ? -1 : 1)) < 0
    }

    static func == (lhs: KeyValue, rhs: KeyValue) -> Bool {
        guard let order = ConditionEvaluator.order(lhs.value, rhs.value) else { return lhs.value == rhs.value }
        return order == 0
    }

    func hash(into hasher: inout Hasher) {
        switch value {
        case .s(var text):
            hasher.combine(0 as UInt8)
            text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .n(let number):
            hasher.combine(1 as UInt8)
            hasher.combine(number)
        case .b(let data):
            hasher.combine(2 as UInt8)
            hasher.combine(data)
        default:
            hasher.combine(value)
        }
    }
}
