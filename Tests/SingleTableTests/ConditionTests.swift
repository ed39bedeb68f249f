import Foundation
import SingleTable
import Testing

@Suite("Condition expressions")
struct ConditionTests {
    static let item: Item = [
        "PK": .s("c"), "SK": .s("item"), "count": .n(5), "name": .s("Ada Lovelace"), "tags": .ss(["a", "b"]),
        "scores": .ns([1, 2]), "list": .l([.s("x"), .n(3)]), "map": .m(["nested": .m(["deep": .n(7)])]),
        "flag": .bool(true), "nothing": .null, "bytes1": .b([1, 2, 3]), "status": .s("active"),
    ]

    static let cases: [(String, [String: String], [String: AttributeValue], Bool)] = [
        ("#c = :five", ["#c": "count"], [":five": .n(5)], true),
        ("#c <> :five", ["#c": "count"], [":five": .n(5)], false),
        (
            "#c < :six AND #c <= :five AND #c > :four AND #c >= :five", ["#c": "count"],
            [":six": .n(6), ":five": .n(5), ":four": .n(4)], true
        ),
        ("#c BETWEEN :one AND :five", ["#c": "count"], [":one": .n(1), ":five": .n(5)], true),
        ("#c BETWEEN :six AND :nine", ["#c": "count"], [":six": .n(6), ":nine": .n(9)], false),
        ("#c IN (:one, :five)", ["#c": "count"], [":one": .n(1), ":five": .n(5)], true),
        ("#c IN (:one, :two)", ["#c": "count"], [":one": .n(1), ":two": .n(2)], false),
        ("attribute_exists(#n) AND attribute_not_exists(absent)", ["#n": "name"], [:], true),
        ("attribute_not_exists(#n)", ["#n": "name"], [:], false),
        ("begins_with(#n, :p)", ["#n": "name"], [":p": .s("Ada")], true),
        ("begins_with(#n, :p)", ["#n": "name"], [":p": .s("Lov")], false),
        ("contains(#n, :p)", ["#n": "name"], [":p": .s("Love")], true),
        ("contains(tags, :t)", [:], [":t": .s("b")], true),
        ("contains(tags, :t)", [:], [":t": .s("z")], false),
        ("contains(scores, :two)", [:], [":two": .n(2)], true),
        ("contains(#l, :x)", ["#l": "list"], [":x": .s("x")], true),
        ("size(#n) = :twelve", ["#n": "name"], [":twelve": .n(12)], true),
        ("size(tags) > :one", [:], [":one": .n(1)], true),
        ("size(bytes1) = :three", [:], [":three": .n(3)], true),
        ("attribute_type(flag, :t)", [:], [":t": .s("BOOL")], true),
        ("attribute_type(#nothing, :t)", ["#nothing": "nothing"], [":t": .s("NULL")], true),
        ("#m.nested.deep = :seven", ["#m": "map"], [":seven": .n(7)], true),
        ("#l[1] = :three", ["#l": "list"], [":three": .n(3)], true),
        ("#l[5] = :three", ["#l": "list"], [":three": .n(3)], false),
        ("NOT (#c = :five)", ["#c": "count"], [":five": .n(5)], false),
        (
            "#c = :one OR (#s = :active AND NOT #c > :nine)", ["#c": "count", "#s": "status"],
            [":one": .n(1), ":active": .s("active"), ":nine": .n(9)], true
        ),
        ("#c = :one or #c = :five", ["#c": "count"], [":one": .n(1), ":five": .n(5)], true),
        (
            "#c = :five AND (#c = :one OR #c = :two)", ["#c": "count"], [":five": .n(5), ":one": .n(1), ":two": .n(2)],
            false
        ),
        ("#c < :text", ["#c": "count"], [":text": .s("9")], false),
        ("#c = :text", ["#c": "count"], [":text": .s("5")], false),
        ("absent = :five", [:], [":five": .n(5)], false),
        ("absent <> :five", [:], [":five": .n(5)], true),
        ("#reserved = :five", ["#reserved": "count"], [":five": .n(5)], true),
        ("#n > :a", ["#n": "name"], [":a": .s("Ae")], false),
        ("#n > :a", ["#n": "name"], [":a": .s("Aa")], true),
        ("bytes1 = :blob", [:], [":blob": .b([1, 2, 3])], true),
    ]

    @Test("Each condition feature of docs/table.md", arguments: TableContract.factories)
    func features(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        try await table.put(Self.item)
        for (expression, names, values, expected) in Self.cases {
            let check = {
                do {
                    let holds = try await table.conditionHolds(expression, names: names, values: values)
                    #expect(holds == expected, "\(expression)")
                } catch {
                    Issue.record("\(expression): \(error)")
                }
            }
            if expression == "#c < :text" {
                // Comparing a number with a string is false in DynamoDB; moto answers HTTP 500.
                await factory.strictly("moto fails on < between a number and a string") { await check() }
            } else {
                await check()
            }
        }
    }

    @Test(
        "Strings and string sets compare by their UTF-8 bytes: é and e with a combining accent differ",
        arguments: TableContract.factories)
    func byteEquality(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        let precomposed = "\u{E9}"
        let decomposed = "e\u{301}"
        try await table.put([
            "PK": .s("c"), "SK": .s("item"), "word": .s("caf" + decomposed), "letters": .ss([precomposed, decomposed]),
        ])
        #expect(try await table.conditionHolds("word = :w", values: [":w": .s("caf" + decomposed)]))
        #expect(try await !table.conditionHolds("word = :w", values: [":w": .s("caf" + precomposed)]))
        #expect(try await table.conditionHolds("word <> :w", values: [":w": .s("caf" + precomposed)]))
        #expect(try await !table.conditionHolds("word IN (:w)", values: [":w": .s("caf" + precomposed)]))
        #expect(try await !table.conditionHolds("contains(word, :p)", values: [":p": .s(precomposed)]))
        #expect(try await table.conditionHolds("contains(word, :p)", values: [":p": .s(decomposed)]))
        #expect(try await table.conditionHolds("contains(letters, :p)", values: [":p": .s(precomposed)]))
        _ = try await table.update("c", "item", "DELETE letters :gone", values: [":gone": .ss([decomposed])])
        #expect(try await table.get("c", "item")?["letters"] == .ss([precomposed]))
        _ = try await table.update("c", "item", "ADD letters :more", values: [":more": .ss([decomposed, precomposed])])
        #expect(try await table.get("c", "item")?["letters"] == .ss([precomposed, decomposed]))
    }

    @Test("A failed condition changes nothing and can return the old item", arguments: TableContract.factories)
    func failedCondition(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        try await table.put(Self.item)
        let error = await expectTableError(.conditionalCheckFailed, "The conditional request failed") {
            _ = try await table.updateItem(
                UpdateItemRequest(
                    tableName: contractTable,
                    key: key("c", "item"),
                    updateExpression: "SET #c = :zero",
                    conditionExpression: "#c > :ten",
                    expressionAttributes: ExpressionAttributes(
                        names: ["#c": "count"], values: [":zero": .n(0), ":ten": .n(10)]),
                    returnValuesOnConditionCheckFailure: .allOld
                )
            )
        }
        #expect(error?.item?["count"] == .n(5))
        #expect(try await table.get("c", "item") == Self.item)
    }
}
