/// A key attribute's value (S, N or B), ordered as DynamoDB orders sort keys: strings by UTF-8
/// bytes, numbers by value, binary by bytes. Two keys are one when their values are equal, which
/// for strings means the same bytes, as in DynamoDB (``AttributeValue``'s `==`).
struct KeyValue: Hashable, Comparable, Sendable {
    let value: AttributeValue

    static func < (lhs: KeyValue, rhs: KeyValue) -> Bool {
        (ConditionEvaluator.order(lhs.value, rhs.value) ?? (lhs.value.typeName < rhs.value.typeName ? -1 : 1)) < 0
    }
}
