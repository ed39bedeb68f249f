import Foundation
import InkraTime
import SingleTable
import Testing

@Suite("Query, ordering, pagination and the sparse GSI")
struct QueryTests {
    func query(
        _ table: any Table,
        _ condition: String,
        _ values: [String: AttributeValue],
        names: [String: String] = [:],
        index: String? = nil,
        forward: Bool = true,
        limit: Int? = nil,
        start: Item? = nil,
        filter: String? = nil,
        projection: String? = nil
    ) async throws -> QueryResponse {
        try await table.query(
            QueryRequest(
                tableName: contractTable,
                indexName: index,
                keyConditionExpression: condition,
                filterExpression: filter,
                projectionExpression: projection,
                expressionAttributes: ExpressionAttributes(names: names, values: values),
                scanIndexForward: forward,
                limit: limit,
                exclusiveStartKey: start
            )
        )
    }

    func seed(_ table: any Table) async throws {
        for sk in [
            "USAGE#2026-03", "RATELIMIT#2026-03-10", "RATELIMIT#2026-03-10T10", "RATELIMIT#2026-03-11", "IDEMPOTENCY#k",
        ] {
            try await table.put(["PK": .s("USER#u"), "SK": .s(sk), "v": .n(sk.count)])
        }
        try await table.put(["PK": .s("USER#other"), "SK": .s("USAGE#2026-03")])
    }

    @Test(
        "Sort keys compare by their UTF-8 bytes: a prefix first, accents after ASCII, canonically equal spellings apart",
        arguments: TableContract.factories)
    func byteOrder(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        let precomposed = "\u{E9}"  // é, C3 A9
        let decomposed = "e\u{301}"  // e and a combining acute accent, 65 CC 81
        for sk in ["\u{2124}", precomposed, "z", decomposed, "ab", "a"] {
            try await table.put(["PK": .s("USER#order"), "SK": .s(sk)])
        }
        func bytes(_ response: QueryResponse) -> [[UInt8]] {
            response.items.map { Array(($0["SK"]?.stringValue ?? "").utf8) }
        }
        let all = try await query(table, "PK = :pk", [":pk": .s("USER#order")])
        #expect(bytes(all) == ["a", "ab", decomposed, "z", precomposed, "\u{2124}"].map { Array($0.utf8) })
        let below = try await query(
            table, "PK = :pk AND SK < :s", [":pk": .s("USER#order"), ":s": .s(precomposed)])
        #expect(bytes(below) == ["a", "ab", decomposed, "z"].map { Array($0.utf8) })
        let exact = try await query(
            table, "PK = :pk AND SK = :s", [":pk": .s("USER#order"), ":s": .s(decomposed)])
        #expect(bytes(exact) == [Array(decomposed.utf8)])
    }

    @Test("Partition keys are one key only byte for byte", arguments: TableContract.factories)
    func partitionBytes(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        try await table.put(["PK": .s("USER#\u{E9}"), "SK": .s("USAGE#2026-03"), "v": .s("precomposed")])
        try await table.put(["PK": .s("USER#e\u{301}"), "SK": .s("USAGE#2026-03"), "v": .s("decomposed")])
        #expect(try await table.get("USER#\u{E9}", "USAGE#2026-03")?["v"] == .s("precomposed"))
        #expect(try await table.get("USER#e\u{301}", "USAGE#2026-03")?["v"] == .s("decomposed"))
        let decomposed = try await query(table, "PK = :pk", [":pk": .s("USER#e\u{301}")])
        #expect(decomposed.items.map { $0["v"] } == [.s("decomposed")])
    }

    @Test("Sort keys in UTF-8 order, both directions, with key conditions", arguments: TableContract.factories)
    func ordering(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        try await seed(table)
        let all = try await query(table, "PK = :pk", [":pk": .s("USER#u")])
        #expect(
            all.items.map { $0["SK"]?.stringValue ?? "" } == [
                "IDEMPOTENCY#k", "RATELIMIT#2026-03-10", "RATELIMIT#2026-03-10T10", "RATELIMIT#2026-03-11",
                "USAGE#2026-03",
            ])
        let backwards = try await query(table, "PK = :pk", [":pk": .s("USER#u")], forward: false)
        #expect(backwards.items.map { $0["SK"]! } == all.items.map { $0["SK"]! }.reversed())
        let prefix = try await query(
            table, "PK = :pk AND begins_with(SK, :p)", [":pk": .s("USER#u"), ":p": .s("RATELIMIT#")])
        #expect(prefix.count == 3)
        let between = try await query(
            table, "#pk = :pk AND #sk BETWEEN :a AND :b",
            [":pk": .s("USER#u"), ":a": .s("RATELIMIT#2026-03-10"), ":b": .s("RATELIMIT#2026-03-10~")],
            names: ["#pk": "PK", "#sk": "SK"]
        )
        #expect(between.count == 2)
        let less = try await query(table, "PK = :pk AND SK < :s", [":pk": .s("USER#u"), ":s": .s("RATELIMIT")])
        #expect(less.items.map { $0["SK"]! } == [.s("IDEMPOTENCY#k")])
        let greater = try await query(table, "PK = :pk AND SK >= :s", [":pk": .s("USER#u"), ":s": .s("USAGE#2026-03")])
        #expect(greater.count == 1)
    }

    @Test("Number sort keys order numerically", arguments: TableContract.factories)
    func numericOrder(factory: TableContract.Factory) async throws {
        let table = InMemoryTable(
            schema: TableSchema(tableName: contractTable, key: .init(partitionKey: "PK", sortKey: "N")),
            now: { Timestamp.now }
        )
        _ = factory
        for n in ["10", "9", "-1", "1.5", "100"] {
            _ = try await table.putItem(
                PutItemRequest(tableName: contractTable, item: ["PK": .s("p"), "N": .n(try Number(parsing: n))]))
        }
        let response = try await query(table, "PK = :p", [":p": .s("p")])
        #expect(response.items.compactMap { $0["N"]?.numberValue?.description } == ["-1", "1.5", "9", "10", "100"])
    }

    @Test(
        "Limit and ExclusiveStartKey page through a partition, forward and backward", arguments: TableContract.factories
    )
    func pagination(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        try await seed(table)
        for forward in [true, false] {
            var seen: [AttributeValue] = []
            var start: Item?
            var pages = 0
            repeat {
                let page = try await query(
                    table, "PK = :pk", [":pk": .s("USER#u")], forward: forward, limit: 2, start: start)
                seen += page.items.map { $0["SK"]! }
                start = page.lastEvaluatedKey
                pages += 1
                if let start { #expect(Set(start.keys) == ["PK", "SK"]) }
            } while start != nil && pages < 10
            #expect(seen.count == 5)
            #expect(Set(seen).count == 5)
            let sorted = seen.map { $0.stringValue ?? "" }
            #expect(sorted == (forward ? sorted.sorted() : sorted.sorted().reversed()))
        }
    }

    @Test("Filter applies after Limit; projection keeps only named attributes", arguments: TableContract.factories)
    func filterAndProjection(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        try await seed(table)
        let filtered = try await query(
            table, "PK = :pk", [":pk": .s("USER#u"), ":min": .n(14)], limit: 3, filter: "v >= :min"
        )
        #expect(filtered.scannedCount == 3)
        #expect(filtered.count == 2)
        let projected = try await query(
            table, "PK = :pk", [":pk": .s("USER#u")], names: ["#v": "v"], projection: "SK, #v")
        #expect(projected.items.allSatisfy { Set($0.keys) == ["SK", "v"] })
    }

    @Test("GSI1 is sparse and queryable", arguments: TableContract.factories)
    func sparseIndex(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        try await seed(table)
        for user in ["b", "a", "c"] {
            try await table.put([
                "PK": .s("USER#\(user)"), "SK": .s("RATELIMIT#2026-03-10"), "GSI1PK": .s("DATE#2026-03-10"),
                "GSI1SK": .s("USER#\(user)"),
            ])
        }
        try await table.put(["PK": .s("USER#d"), "SK": .s("RATELIMIT#2026-03-10"), "GSI1PK": .s("DATE#2026-03-10")])
        let refused = try await query(table, "GSI1PK = :d", [":d": .s("DATE#2026-03-10")], index: "GSI1")
        #expect(refused.items.map { $0["GSI1SK"]! } == [.s("USER#a"), .s("USER#b"), .s("USER#c")])
        let page = try await query(table, "GSI1PK = :d", [":d": .s("DATE#2026-03-10")], index: "GSI1", limit: 1)
        let last = try #require(page.lastEvaluatedKey)
        #expect(Set(last.keys) == ["PK", "SK", "GSI1PK", "GSI1SK"])
        let rest = try await query(table, "GSI1PK = :d", [":d": .s("DATE#2026-03-10")], index: "GSI1", start: last)
        #expect(rest.items.map { $0["GSI1SK"]! } == [.s("USER#b"), .s("USER#c")])
        _ = try await table.update("USER#a", "RATELIMIT#2026-03-10", "REMOVE GSI1PK, GSI1SK")
        let after = try await query(table, "GSI1PK = :d", [":d": .s("DATE#2026-03-10")], index: "GSI1")
        #expect(after.count == 2)
        await factory.strictly("moto answers a query on an unknown index; DynamoDB refuses it") {
            let missingIndex = await expectTableError(.validation, "index") {
                _ = try await query(table, "GSI2PK = :d", [":d": .s("x")], index: "GSI2")
            }
            #expect(missingIndex != nil)
        }
    }

    @Test(
        "An index entry follows its item's index keys through every kind of write", arguments: TableContract.factories)
    func indexFollowsWrites(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        let day = [":d": AttributeValue.s("DATE#2026-03-10")]
        func refused(_ date: String = "DATE#2026-03-10") async throws -> [String] {
            try await query(table, "GSI1PK = :d", [":d": .s(date)], index: "GSI1").items.compactMap {
                $0["PK"]?.stringValue
            }
        }
        for user in ["a", "b", "c"] {
            try await table.put([
                "PK": .s("USER#\(user)"), "SK": .s("RATELIMIT#2026-03-10"), "GSI1PK": .s("DATE#2026-03-10"),
                "GSI1SK": .s("USER#\(user)"), "requestCount": .n(1),
            ])
        }
        // Writes that leave the index keys as they were: one entry each, in place.
        for _ in 0..<3 {
            _ = try await table.update(
                "USER#b", "RATELIMIT#2026-03-10", "ADD requestCount :one", values: [":one": .n(1)])
        }
        _ = try await table.update(
            "USER#b", "RATELIMIT#2026-03-10", "SET GSI1PK = :d", values: day)
        #expect(try await refused() == ["USER#a", "USER#b", "USER#c"])
        // A new index sort key moves the entry within its partition.
        _ = try await table.update(
            "USER#a", "RATELIMIT#2026-03-10", "SET GSI1SK = :s", values: [":s": .s("USER#z")])
        #expect(try await refused() == ["USER#b", "USER#c", "USER#a"])
        // A new index partition key moves it to another partition.
        _ = try await table.update(
            "USER#c", "RATELIMIT#2026-03-10", "SET GSI1PK = :d", values: [":d": .s("DATE#2026-03-11")])
        #expect(try await refused() == ["USER#b", "USER#a"])
        #expect(try await refused("DATE#2026-03-11") == ["USER#c"])
        // A put without the index keys takes the item out; a put with them puts it back.
        try await table.put(["PK": .s("USER#b"), "SK": .s("RATELIMIT#2026-03-10"), "requestCount": .n(9)])
        #expect(try await refused() == ["USER#a"])
        try await table.put([
            "PK": .s("USER#b"), "SK": .s("RATELIMIT#2026-03-10"), "GSI1PK": .s("DATE#2026-03-10"),
            "GSI1SK": .s("USER#b"),
        ])
        #expect(try await refused() == ["USER#b", "USER#a"])
    }

    @Test("Key conditions must name the partition key with =", arguments: TableContract.factories)
    func badKeyConditions(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        for condition in ["SK = :v", "PK > :v", "PK = :v OR SK = :v", "PK = :v AND other = :v"] {
            await factory.strictly("moto accepts some key conditions DynamoDB refuses") {
                let error = await expectTableError(.validation) {
                    _ = try await query(table, condition, [":v": .s("x")])
                }
                #expect(error != nil, "\(condition)")
            }
        }
    }
}
