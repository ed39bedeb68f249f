import InkraJSON
import SingleTable

/// The input is `update expression` NUL `condition expression`, run as one UpdateItem on an item
/// with a number, a string, a list and a map, with fixed placeholders; a write that is refused must
/// leave the item exactly as it was.
enum ExpressionAtomicity {
    static let key: Item = ["PK": .s("USER#fuzz"), "SK": .s("USAGE#2026-11")]
    static let original: Item = key.merging([
        "requestCount": .n(3), "tier": .s("free"), "history": .l([.n(1), .s("a")]),
        "meta": .m(["count": .n(0), "note": .s("x")]),
    ]) { $1 }
    static let names = ["#n": "requestCount", "#t": "tier", "#h": "history", "#m": "meta", "#c": "count"]
    static let values: [String: AttributeValue] = [
        ":one": .n(1), ":limit": .n(5), ":s": .s("premium"), ":l": .l([.s("z")]), ":zero": .n(0),
    ]

    static func run(_ bytes: [UInt8]) async throws(FuzzFailure) {
        let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
        let update = String(decoding: parts.first ?? [], as: UTF8.self)
        let condition = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : nil
        let text = update + (condition ?? "")
        let table = InMemoryTable(schema: .singleTable(named: "fuzz"), items: [original], now: { fuzzInstant })
        let request = UpdateItemRequest(
            tableName: "fuzz",
            key: key,
            updateExpression: update.isEmpty ? nil : update,
            conditionExpression: condition,
            // Only the placeholders the expressions mention: unused ones are refused, as DynamoDB does.
            expressionAttributes: ExpressionAttributes(
                names: names.filter { text.contains($0.key) }, values: values.filter { text.contains($0.key) }),
            returnValues: .allNew
        )
        do {
            _ = try await table.updateItem(request)
        } catch {
            let after = table.snapshot()
            guard after == [original] else {
                throw FuzzFailure("a refused UpdateItem changed the table: \(update) / \(condition ?? "-") → \(after)")
            }
        }
    }
}
