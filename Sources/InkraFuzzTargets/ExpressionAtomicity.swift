import InkraJSON
import SingleTable

/// The input is `update expression` NUL `condition expression`, run as one UpdateItem on an item
/// with a number, a string, a list and a map, with fixed placeholders: a write that is refused must
/// leave the item exactly as it was, a condition that holds must not refuse it, and a write that is
/// made must leave exactly the image it returns.
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
        let table = InMemoryTable(schema: .singleTable(named: "fuzz"), items: [original], now: { fuzzInstant })
        let outcome: Result<WriteItemResponse, any Error>
        do {
            outcome = .success(try await table.updateItem(request(update: update, condition: condition)))
        } catch {
            outcome = .failure(error)
        }
        try await check(update: update, condition: condition, outcome: outcome, after: table.snapshot())
    }

    /// The UpdateItem of `update` and `condition` on ``original``, with the placeholders they mention
    /// (unused ones are refused, as DynamoDB does).
    static func request(update: String, condition: String?) -> UpdateItemRequest {
        let text = update + (condition ?? "")
        return UpdateItemRequest(
            tableName: "fuzz",
            key: key,
            updateExpression: update.isEmpty ? nil : update,
            conditionExpression: condition,
            expressionAttributes: placeholders(in: text),
            returnValues: .allNew
        )
    }

    /// The invariant, given what the write answered and the table after it:
    /// - refused: the table holds ``original`` unchanged; and when the refusal is a failed
    ///   condition, the condition alone (a PutItem of the same item under it) must not hold;
    /// - written: the table holds exactly the new image the write returned, under the same key.
    static func check(
        update: String, condition: String?, outcome: Result<WriteItemResponse, any Error>, after: [Item]
    ) async throws(FuzzFailure) {
        switch outcome {
        case .failure(let error):
            guard after == [original] else {
                throw FuzzFailure("a refused UpdateItem changed the table: \(update) / \(condition ?? "-") → \(after)")
            }
            if let condition, (error as? TableError)?.code == .conditionalCheckFailed,
                await conditionHolds(condition)
            {
                throw FuzzFailure("a condition that holds refused the write: \(update) / \(condition)")
            }
        case .success(let response):
            guard let written = response.attributes, after == [written] else {
                throw FuzzFailure(
                    "the table does not hold the image the write returned: \(update) / \(condition ?? "-") → "
                        + "\(after) vs \(response.attributes.map { "\($0)" } ?? "none")")
            }
            guard written["PK"] == key["PK"], written["SK"] == key["SK"] else {
                throw FuzzFailure("a write changed the item's key: \(update) → \(written)")
            }
        }
    }

    /// The fixed placeholders `text` mentions, as whole tokens (`:l` is not in `:limit`).
    static func placeholders(in text: String) -> ExpressionAttributes {
        let mentioned = Set(text.matches(of: /[#:][A-Za-z0-9_]+/).map { String(text[$0.range]) })
        return ExpressionAttributes(
            names: names.filter { mentioned.contains($0.key) }, values: values.filter { mentioned.contains($0.key) })
    }

    /// Whether `condition` holds on ``original``, asked of a PutItem of the same item under it.
    static func conditionHolds(_ condition: String) async -> Bool {
        let table = InMemoryTable(schema: .singleTable(named: "fuzz"), items: [original], now: { fuzzInstant })
        let put = PutItemRequest(
            tableName: "fuzz", item: original, conditionExpression: condition,
            expressionAttributes: placeholders(in: condition))
        do {
            _ = try await table.putItem(put)
            return true
        } catch {
            return false
        }
    }
}
