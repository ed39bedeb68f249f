import DynamoDBTable
import Foundation
import InkraJSON
import InkraTime
import SingleTable
import Testing

@Suite("Validation and DynamoDB's errors")
struct ValidationTests {
    @Test("The 400 KB item limit", arguments: TableContract.factories)
    func itemSize(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        // DynamoDB refuses items over 400 KB (409,600 bytes); moto refuses over 405,000 bytes, so the
        // sizes here sit clearly below and above both.
        let fits = String(repeating: "x", count: 400_000)
        try await table.put(["PK": .s("big"), "SK": .s("1"), "payload": .s(fits)])
        let error = await expectTableError(.validation, "Item size has exceeded the maximum allowed size") {
            try await table.put([
                "PK": .s("big"), "SK": .s("2"), "payload": .s(fits + String(repeating: "y", count: 12_000)),
            ])
        }
        #expect(error != nil)
        await factory.strictly("moto does not check the item size after an UpdateItem; DynamoDB does") {
            let grow = await expectTableError(.validation, "Item size has exceeded the maximum allowed size") {
                _ = try await table.update(
                    "big", "1", "SET more = :m", values: [":m": .s(String(repeating: "z", count: 12_000))])
            }
            #expect(grow != nil)
        }
        #expect(try await table.get("big", "1")?["more"] == nil)
    }

    @Test(
        "A number counts one byte per two significant digits and one more, whatever form it is held in",
        arguments: [
            ("1000000", 2), ("1e6", 2), ("1234567", 5), ("1.234567e6", 5), ("0.1234567", 5), ("1E+20", 2),
            ("-999999999999999999", 10), ("12345678901234567890", 11),
        ]
    )
    func numberSize(text: String, size: Int) async throws {
        let table = InMemoryTable(schema: .singleTable(named: contractTable), now: { Timestamp.now })
        let number = try Number(parsing: text)
        // PK "p" and SK "s" (3 bytes each with their names), "n" (1 + the number), "x" (1 + the text).
        let room = 400 * 1024 - 3 - 3 - 1 - size - 1
        try await table.put([
            "PK": .s("p"), "SK": .s("s"), "n": .n(number), "x": .s(String(repeating: "x", count: room)),
        ])
        let error = await expectTableError(.validation, "Item size has exceeded the maximum allowed size") {
            try await table.put([
                "PK": .s("p"), "SK": .s("t"), "n": .n(number), "x": .s(String(repeating: "x", count: room + 1)),
            ])
        }
        #expect(error != nil)
    }

    @Test(
        "Placeholders must be defined and used",
        arguments: [
            (
                "SET a = :a", [:], [":a": AttributeValue.n(1), ":unused": .n(2)],
                "unused in expressions: keys: {:unused}"
            ),
            ("SET a = :missing", [:], [":a": AttributeValue.n(1)], "unused in expressions"),
            ("SET #a = :a", ["#b": "b"], [":a": AttributeValue.n(1)], "unused in expressions"),
            ("SET #a = :a", [:], [":a": AttributeValue.n(1)], "attribute name: #a"),
        ] as [(String, [String: String], [String: AttributeValue], String)]
    )
    func placeholders(expression: String, names: [String: String], values: [String: AttributeValue], message: String)
        async throws
    {
        let table = InMemoryTable(schema: .singleTable(named: contractTable), now: { Timestamp.now })
        let error = await expectTableError(.validation, message) {
            _ = try await table.update("p", "1", expression, names: names, values: values)
        }
        #expect(error != nil, "\(expression)")
        #expect(table.count == 0)
    }

    @Test(
        "A placeholder a condition and an update both use is provided once, and counted once",
        arguments: [
            ("SET a = :v", "attribute_not_exists(a) OR a < :v", [:], [":v": AttributeValue.n(1)], nil),
            ("SET a = :v, b = :w", "attribute_not_exists(a) OR a < :v", [:], [":v": .n(1), ":w": .n(2)], nil),
            ("SET #a = :v", "attribute_not_exists(#a) OR #a < :w", ["#a": "a"], [":v": .n(1), ":w": .n(2)], nil),
            (
                "SET a = :v", "attribute_not_exists(a) OR a < :v", [:], [":v": .n(1), ":x": .n(3)],
                "unused in expressions: keys: {:x}"
            ),
            (
                "SET a = :v, b = :w", "attribute_not_exists(a) OR a < :v", [:], [":v": .n(1)],
                "attribute value: :w"
            ),
            (
                "SET a = :v", "attribute_not_exists(#a)", ["#a": "a", "#b": "b"], [":v": .n(1)],
                "unused in expressions: keys: {#b}"
            ),
        ] as [(String, String, [String: String], [String: AttributeValue], String?)]
    )
    func sharedPlaceholders(
        expression: String, condition: String, names: [String: String], values: [String: AttributeValue],
        message: String?
    ) async throws {
        let table = InMemoryTable(schema: .singleTable(named: contractTable), now: { Timestamp.now })
        guard let message else {
            _ = try await table.update("p", "1", expression, condition: condition, names: names, values: values)
            #expect(try await table.get("p", "1")?["a"] == .n(1))
            return
        }
        let error = await expectTableError(.validation, message) {
            _ = try await table.update("p", "1", expression, condition: condition, names: names, values: values)
        }
        #expect(error != nil, "\(expression) with \(condition)")
        #expect(table.count == 0)
    }

    @Test("A query's key condition, filter and projection share their placeholders")
    func queryPlaceholders() async throws {
        let table = InMemoryTable(schema: .singleTable(named: contractTable), now: { Timestamp.now })
        try await table.put(["PK": .s("p"), "SK": .s("1"), "n": .n(5)])
        func query(_ names: [String: String], _ values: [String: AttributeValue]) async throws -> [Item] {
            try await table.query(
                QueryRequest(
                    tableName: contractTable, keyConditionExpression: "PK = :p AND SK >= :low",
                    filterExpression: "#n <> :low", projectionExpression: "#n, SK",
                    expressionAttributes: ExpressionAttributes(names: names, values: values))
            ).items
        }
        // :low bounds the sort key and is compared with n by the filter; #n is filtered on and projected.
        let items = try await query(["#n": "n"], [":p": .s("p"), ":low": .s("0")])
        #expect(items == [["n": .n(5), "SK": .s("1")]])
        let unused = await expectTableError(.validation, "unused in expressions: keys: {:extra}") {
            _ = try await query(["#n": "n"], [":p": .s("p"), ":low": .s("0"), ":extra": .n(1)])
        }
        #expect(unused != nil)
        let missing = await expectTableError(.validation, "attribute value: :low") {
            _ = try await query(["#n": "n"], [":p": .s("p")])
        }
        #expect(missing != nil)
    }

    @Test("Keys, tables and sets are checked", arguments: TableContract.factories)
    func keysAndTables(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        let missingKey = await expectTableError(.validation, "Missing the key SK") {
            try await table.put(["PK": .s("only")])
        }
        #expect(missingKey != nil)
        let wrongKey = await expectTableError(.validation) {
            _ = try await table.getItem(GetItemRequest(tableName: contractTable, key: ["PK": .s("x")]))
        }
        #expect(wrongKey != nil)
        let numberKey = await expectTableError(.validation) {
            try await table.put(["PK": .bool(true), "SK": .s("1")])
        }
        #expect(numberKey != nil)
        let emptySet = await expectTableError(.validation) {
            try await table.put(["PK": .s("s"), "SK": .s("1"), "tags": .ss([])])
        }
        #expect(emptySet != nil)
        let unknownTable = await expectTableError(.resourceNotFound) {
            _ = try await table.getItem(GetItemRequest(tableName: "no-such-table", key: key("a", "b")))
        }
        #expect(unknownTable != nil)
    }

    @Test("Set rules hold inside maps and lists too, on puts and updates, and a refused write changes nothing")
    func nestedSets() async throws {
        let table = InMemoryTable(schema: .singleTable(named: contractTable), now: { Timestamp.now })
        let plain: Item = ["PK": .s("s"), "SK": .s("1"), "n": .n(1), "t": .s("x"), "b": .bool(true), "z": .null]
        try await table.put(plain)
        let refused: [(AttributeValue, String)] = [
            (.m(["tags": .ss([])]), "A set may not be empty"),
            (.l([.s("a"), .ns([Number(1), Number(1)])]), "contains duplicates"),
            (.m(["deep": .l([.m(["bytes": .bs([])])])]), "A set may not be empty"),
            (.ss(["a", "a"]), "contains duplicates"),
        ]
        for (value, message) in refused {
            let put = await expectTableError(.validation, message) {
                try await table.put(["PK": .s("s"), "SK": .s("2"), "v": value])
            }
            #expect(put != nil, "put of \(value)")
            let update = await expectTableError(.validation, message) {
                _ = try await table.updateItem(
                    UpdateItemRequest(
                        tableName: contractTable, key: key("s", "1"), updateExpression: "SET v = :v",
                        expressionAttributes: ExpressionAttributes(values: [":v": value])))
            }
            #expect(update != nil, "update to \(value)")
        }
        #expect(try await table.get("s", "1") == plain)
        #expect(try await table.get("s", "2") == nil)
        let nested: Item = [
            "PK": .s("s"), "SK": .s("3"), "m": .m(["tags": .ss(["a", "b"]), "l": .l([.ns([Number(2)])])]),
        ]
        try await table.put(nested)
        #expect(try await table.get("s", "3") == nested)
    }

    @Test("A Limit below 1 is refused on Query and Scan, and a huge one is no crash")
    func limitBelowOne() async throws {
        let table = InMemoryTable(schema: .singleTable(named: contractTable), now: { Timestamp.now })
        try await table.put(["PK": .s("p"), "SK": .s("1")])
        for limit in [0, -1, Int.min] {
            let scan = await expectTableError(.validation, "limit") {
                _ = try await table.scan(ScanRequest(tableName: contractTable, limit: limit))
            }
            #expect(scan != nil, "Scan with Limit \(limit)")
            let query = await expectTableError(.validation, "limit") {
                _ = try await table.query(
                    QueryRequest(
                        tableName: contractTable, keyConditionExpression: "PK = :p",
                        expressionAttributes: ExpressionAttributes(values: [":p": .s("p")]), limit: limit))
            }
            #expect(query != nil, "Query with Limit \(limit)")
        }
        try await table.put(["PK": .s("p"), "SK": .s("2")])
        let rest = try await table.scan(
            ScanRequest(tableName: contractTable, limit: .max, exclusiveStartKey: key("p", "1")))
        #expect(rest.items.map { $0["SK"] } == [.s("2")])
    }

    @Test("Malformed expressions are validation errors, never crashes")
    func malformedExpressions() async throws {
        let table = InMemoryTable(schema: .singleTable(named: contractTable), now: { Timestamp.now })
        let expressions = [
            "", "SET", "SET a", "SET a =", "SET = :v", "ADD", "REMOVE", "SET a = :v SET b = :v", "SET a = :v,",
            "SET a[ = :v", "SET a[x] = :v", "SET a.#= :v", "SET a = if_not_exists(:v)", "SET a = unknown_fn(a, :v)",
            "SET a = (:v", "DELETE", "FOO a :v", "SET a = :v + + :v", "SET a = a[99999999999999999999]", "SET 🙂 = :v",
            "SET a = :v REMOVE", String(repeating: "(", count: 5_000),
        ]
        for expression in expressions {
            let error = await expectTableError(.validation) {
                _ = try await table.update("p", "1", expression, values: [":v": .n(1)])
            }
            #expect(error != nil, "\(expression.prefix(40))")
        }
        let conditions = [
            "a =", "= :v", "a = :v AND", "(a = :v", "a = :v)", "a BETWEEN :v", "a IN ()", "NOT", "size(a", "a <> <> :v",
            "attribute_exists()", "begins_with(a)", String(repeating: "NOT ", count: 5_000) + "a = :v",
            String(repeating: "(", count: 5_000) + "a = :v" + String(repeating: ")", count: 5_000),
        ]
        for condition in conditions {
            let error = await expectTableError(.validation) {
                _ = try await table.update("p", "1", "SET b = :v", condition: condition, values: [":v": .n(1)])
            }
            #expect(error != nil, "\(condition.prefix(40))")
        }
        #expect(table.count == 0)
    }

    @Test("Attribute values round-trip through DynamoDB's JSON")
    func dynamoJSON() throws {
        let item: Item = [
            "s": .s("text"), "n": .n(try Number(parsing: "-12.5")), "b": .b([0, 255]), "bool": .bool(false),
            "null": .null,
            "m": .m(["k": .l([.n(1), .s("x")])]), "ss": .ss(["a"]), "ns": .ns([1, 2]), "bs": .bs([[1]]),
        ]
        let json = Wire.item(item)
        #expect(try Wire.item(try JSONParser.parse(json.jsonString)) == item)
        #expect(json.jsonString.contains(#""n":{"N":"-12.5"}"#))
        #expect(throws: TableError.self) {
            try Wire.item(try JSONParser.parse(#"{"x":{"Q":"1"}}"#))
        }
        #expect(throws: TableError.self) {
            try Wire.item(try JSONParser.parse(#"{"x":{"N":"abc"}}"#))
        }
    }
}
