import Foundation
import InkraTime
import SingleTable
import Testing

@Suite("Update expressions and ReturnValues")
struct UpdateTests {
    @Test("SET, if_not_exists, arithmetic, list_append, ADD, REMOVE and DELETE", arguments: TableContract.factories)
    func actions(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        try await table.put([
            "PK": .s("u"), "SK": .s("1"), "n": .n(10), "gone": .s("x"), "tags": .ss(["a", "b", "c"]),
            "list": .l([.n(1)]), "map": .m(["k": .s("v")]),
        ])
        _ = try await table.update(
            "u", "1",
            "SET n = n + :two, m = n - :one, firstSeen = if_not_exists(firstSeen, :now), #l = list_append(#l, :more), #map.k2 = :v "
                + "REMOVE gone ADD tally :one, tags :d",
            names: ["#l": "list", "#map": "map"],
            values: [
                ":two": .n(2), ":one": .n(1), ":now": .s("t0"), ":more": .l([.n(2)]), ":v": .s("w"), ":d": .ss(["d"]),
            ]
        )
        _ = try await table.update("u", "1", "DELETE tags :ab", values: [":ab": .ss(["a", "b"])])
        _ = try await table.update(
            "u", "1", "SET firstSeen = if_not_exists(firstSeen, :later)", values: [":later": .s("t1")])
        let item = try #require(try await table.get("u", "1"))
        #expect(item["n"] == .n(12))
        #expect(item["m"] == .n(9))
        #expect(item["firstSeen"] == .s("t0"))
        #expect(item["list"] == .l([.n(1), .n(2)]))
        #expect(item["map"] == .m(["k": .s("v"), "k2": .s("w")]))
        #expect(item["gone"] == nil)
        #expect(item["tally"] == .n(1))
        #expect(item["tags"] == .ss(["c", "d"]))
    }

    @Test("UpdateItem creates the item when it does not exist", arguments: TableContract.factories)
    func upsert(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        _ = try await table.update("new", "1", "ADD hits :one", values: [":one": .n(1)])
        #expect(try await table.get("new", "1") == ["PK": .s("new"), "SK": .s("1"), "hits": .n(1)])
    }

    @Test("ReturnValues of UpdateItem", arguments: TableContract.factories)
    func returnValues(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        try await table.put(["PK": .s("r"), "SK": .s("1"), "a": .n(1), "b": .s("keep")])
        let values: [String: AttributeValue] = [":one": .n(1)]
        #expect(try await table.update("r", "1", "ADD a :one", values: values, returning: .none) == nil)
        #expect(try await table.update("r", "1", "ADD a :one", values: values, returning: .updatedOld) == ["a": .n(2)])
        #expect(try await table.update("r", "1", "ADD a :one", values: values, returning: .updatedNew) == ["a": .n(4)])
        #expect(
            try await table.update("r", "1", "ADD a :one", values: values, returning: .allOld)
                == ["PK": .s("r"), "SK": .s("1"), "a": .n(4), "b": .s("keep")]
        )
        #expect(
            try await table.update("r", "1", "ADD a :one", values: values, returning: .allNew)
                == ["PK": .s("r"), "SK": .s("1"), "a": .n(6), "b": .s("keep")]
        )
    }

    @Test("ReturnValues of PutItem and DeleteItem", arguments: TableContract.factories)
    func putAndDelete(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        let first: Item = ["PK": .s("p"), "SK": .s("1"), "v": .n(1)]
        let none = try await table.putItem(PutItemRequest(tableName: contractTable, item: first, returnValues: .allOld))
        #expect(none.attributes == nil)
        let replaced = try await table.putItem(
            PutItemRequest(
                tableName: contractTable, item: ["PK": .s("p"), "SK": .s("1"), "v": .n(2)], returnValues: .allOld)
        )
        #expect(replaced.attributes == first)
        let deleted = try await table.deleteItem(
            DeleteItemRequest(tableName: contractTable, key: key("p", "1"), returnValues: .allOld))
        #expect(deleted.attributes?["v"] == .n(2))
        #expect(try await table.get("p", "1") == nil)
        await factory.strictly("moto accepts ReturnValues ALL_NEW on PutItem; DynamoDB allows only NONE and ALL_OLD") {
            let error = await expectTableError(.validation, "ReturnValues") {
                _ = try await table.putItem(
                    PutItemRequest(tableName: contractTable, item: first, returnValues: .allNew))
            }
            #expect(error != nil)
        }
    }

    @Test("Wrong types and key attributes are refused, and nothing changes", arguments: TableContract.factories)
    func refusals(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        let original: Item = ["PK": .s("w"), "SK": .s("1"), "text": .s("abc"), "n": .n(1)]
        try await table.put(original)
        let typeError = await expectTableError(.validation, "incorrect data type") {
            _ = try await table.update("w", "1", "ADD #t :one", names: ["#t": "text"], values: [":one": .n(1)])
        }
        #expect(typeError != nil)
        await factory.strictly("moto accepts arithmetic on a string attribute; DynamoDB refuses it") {
            let arithmetic = await expectTableError(.validation, "incorrect data type") {
                _ = try await table.update(
                    "w", "1", "SET n = #t + :one", names: ["#t": "text"], values: [":one": .n(1)])
            }
            #expect(arithmetic != nil)
        }
        let keyError = await expectTableError(.validation, "part of the key") {
            _ = try await table.update("w", "1", "SET SK = :x", values: [":x": .s("2")])
        }
        #expect(keyError != nil)
        #expect(try await table.get("w", "1") == original)
    }

    @Test(
        "An update that names a key attribute or overlapping paths is a validation error even when its condition fails",
        arguments: TableContract.factories)
    func validationBeforeCondition(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        let original: Item = ["PK": .s("v"), "SK": .s("1"), "n": .n(1)]
        try await table.put(original)
        // DynamoDB validates the update expression before it reads the item (so before the
        // condition); moto evaluates the condition first.
        await factory.strictly("moto checks the condition before validating the update expression") {
            let keyError = await expectTableError(.validation, "part of the key") {
                _ = try await table.updateItem(
                    UpdateItemRequest(
                        tableName: contractTable, key: ["PK": .s("v"), "SK": .s("1")],
                        updateExpression: "SET SK = :x", conditionExpression: "n > :big",
                        expressionAttributes: ExpressionAttributes(values: [":x": .s("2"), ":big": .n(5)])))
            }
            #expect(keyError != nil)
            let overlap = await expectTableError(.validation, "overlap") {
                _ = try await table.updateItem(
                    UpdateItemRequest(
                        tableName: contractTable, key: ["PK": .s("v"), "SK": .s("1")],
                        updateExpression: "SET n = :x REMOVE n", conditionExpression: "n > :big",
                        expressionAttributes: ExpressionAttributes(values: [":x": .n(2), ":big": .n(5)])))
            }
            #expect(overlap != nil)
        }
        #expect(try await table.get("v", "1") == original)
    }

    @Test("Each expression text is its own, however many the table has seen and however alike they are")
    func manyTexts() async throws {
        let table = InMemoryTable(schema: .singleTable(named: contractTable), now: { Timestamp.now })
        // More distinct texts than the table keeps parsed, each applied twice, in two passes.
        let prefix = "SET touched = :v, "
        for pass in 0..<2 {
            for index in 0..<2_100 {
                let text = prefix + "a\(index) = :v ADD n :one"
                _ = try await table.update(
                    "p", "\(index % 7)", text, values: [":v": .n(index), ":one": .n(1)])
                let item = try #require(try await table.get("p", "\(index % 7)"))
                #expect(item["a\(index)"] == .n(index), "\(text)")
                #expect(item["touched"] == .n(index))
                if pass == 1 && index % 300 == 0 { #expect(item["n"] == .n(index / 7 + 2_100 / 7 + 1)) }
            }
        }
        // Texts alike up to their last characters, used in turn.
        for round in 0..<3 {
            for name in ["x", "y", "z"] {
                _ = try await table.update(
                    "q", "1", "SET long_attribute_name_shared_by_all = :v ADD \(name) :one",
                    values: [":v": .s(name), ":one": .n(1)])
            }
            let item = try #require(try await table.get("q", "1"))
            #expect(item["x"] == .n(round + 1) && item["y"] == .n(round + 1) && item["z"] == .n(round + 1))
            #expect(item["long_attribute_name_shared_by_all"] == .s("z"))
        }
    }
}
