import Foundation
import InkraTesting
import InkraTime
import SingleTable
import Testing

@Suite("TransactWriteItems")
struct TransactionTests {
    func increment(_ sk: String, limit: Int, returnOld: Bool = false) -> TransactWriteItem {
        .update(
            UpdateItemRequest(
                tableName: contractTable,
                key: key("USER#t", sk),
                updateExpression: "ADD n :one",
                conditionExpression: "attribute_not_exists(n) OR n < :limit",
                expressionAttributes: ExpressionAttributes(values: [":one": .n(1), ":limit": .n(limit)]),
                returnValuesOnConditionCheckFailure: returnOld ? .allOld : .none
            )
        )
    }

    @Test("All or nothing, with cancellation reasons in request order", arguments: TableContract.factories)
    func allOrNothing(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        try await table.transactWriteItems(
            TransactWriteItemsRequest(transactItems: [
                increment("a", limit: 5), increment("b", limit: 1), increment("c", limit: 5),
            ])
        )
        let error = await expectTableError(.transactionCanceled, "ConditionalCheckFailed") {
            try await table.transactWriteItems(
                TransactWriteItemsRequest(transactItems: [
                    increment("a", limit: 5), increment("b", limit: 1, returnOld: true), increment("c", limit: 5),
                ])
            )
        }
        let reasons = try #require(error?.cancellationReasons)
        #expect(reasons.map(\.code) == ["None", "ConditionalCheckFailed", "None"])
        #expect(reasons[1].item?["n"] == .n(1))
        #expect(
            error?.message
                == "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed, None]"
        )
        for sk in ["a", "b", "c"] {
            #expect(try await table.get("USER#t", sk)?["n"] == .n(1), "item \(sk) unchanged")
        }
    }

    @Test(
        "A reason for every action wherever the failed conditions are",
        arguments: TableContract.factories.flatMap { factory in
            [[1, 5, 5], [5, 5, 1], [1, 5, 1], [1, 1, 1]].map { (factory, $0) }
        }
    )
    func reasonsInPlace(factory: TableContract.Factory, limits: [Int]) async throws {
        let table = try await factory.make()
        let names = ["a", "b", "c"]
        try await table.transactWriteItems(
            TransactWriteItemsRequest(transactItems: names.map { increment($0, limit: 5) }))
        let error = await expectTableError(.transactionCanceled) {
            try await table.transactWriteItems(
                TransactWriteItemsRequest(transactItems: zip(names, limits).map { increment($0, limit: $1) }))
        }
        let expected = limits.map { $0 == 1 ? "ConditionalCheckFailed" : "None" }
        #expect(error?.cancellationReasons.map(\.code) == expected)
        #expect(
            error?.message
                == "Transaction cancelled, please refer cancellation reasons for specific reasons [\(expected.joined(separator: ", "))]"
        )
        for sk in names {
            #expect(try await table.get("USER#t", sk)?["n"] == .n(1), "item \(sk) unchanged")
        }
    }

    @Test("Puts, deletes and condition checks take part", arguments: TableContract.factories)
    func mixed(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        try await table.put(["PK": .s("m"), "SK": .s("old"), "v": .n(1)])
        try await table.put(["PK": .s("m"), "SK": .s("guard"), "open": .bool(true)])
        try await table.transactWriteItems(
            TransactWriteItemsRequest(transactItems: [
                .put(
                    PutItemRequest(
                        tableName: contractTable, item: ["PK": .s("m"), "SK": .s("new")],
                        conditionExpression: "attribute_not_exists(PK)")),
                .delete(DeleteItemRequest(tableName: contractTable, key: key("m", "old"))),
                .conditionCheck(
                    .init(
                        tableName: contractTable, key: key("m", "guard"), conditionExpression: "#o = :t",
                        expressionAttributes: ExpressionAttributes(names: ["#o": "open"], values: [":t": .bool(true)]))),
            ])
        )
        #expect(try await table.get("m", "new") != nil)
        #expect(try await table.get("m", "old") == nil)
        #expect(try await table.get("m", "guard")?["open"] == .bool(true))
    }

    @Test("Two actions on one item are refused", arguments: TableContract.factories)
    func sameItemTwice(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        let error = await expectTableError(.validation, "multiple operations on one item") {
            try await table.transactWriteItems(
                TransactWriteItemsRequest(transactItems: [increment("a", limit: 5), increment("a", limit: 5)])
            )
        }
        #expect(error != nil)
        #expect(try await table.get("USER#t", "a") == nil)
    }

    @Test("A ClientRequestToken makes a retry count once")
    func idempotentRetry() async throws {
        let table = InMemoryTable(schema: .singleTable(named: contractTable), now: { Timestamp.now })
        let request = TransactWriteItemsRequest(
            transactItems: [increment("a", limit: 5)], clientRequestToken: "retry-1")
        try await table.transactWriteItems(request)
        try await table.transactWriteItems(request)
        #expect(try await table.get("USER#t", "a")?["n"] == .n(1))
        let mismatch = await expectTableError(.idempotentParameterMismatch) {
            try await table.transactWriteItems(
                TransactWriteItemsRequest(transactItems: [increment("b", limit: 5)], clientRequestToken: "retry-1")
            )
        }
        #expect(mismatch != nil)
    }

    @Test("A ClientRequestToken expires after ten minutes")
    func tokenExpiry() async throws {
        let clock = ManualClock(Timestamp(timeIntervalSince1970: 1_000_000))
        let table = InMemoryTable(schema: .singleTable(named: contractTable), now: { clock.now })
        let request = TransactWriteItemsRequest(transactItems: [increment("a", limit: 5)], clientRequestToken: "t")
        try await table.transactWriteItems(request)
        clock.advance(by: .seconds(601))
        try await table.transactWriteItems(request)
        #expect(try await table.get("USER#t", "a")?["n"] == .n(2))
    }

    @Test("Tokens expire oldest first: a newer one is still held when an older one has gone")
    func tokensExpireInOrder() async throws {
        let clock = ManualClock(Timestamp(timeIntervalSince1970: 1_000_000))
        let table = InMemoryTable(schema: .singleTable(named: contractTable), now: { clock.now })
        try await table.transactWriteItems(
            TransactWriteItemsRequest(transactItems: [increment("a", limit: 5)], clientRequestToken: "old"))
        clock.advance(by: .seconds(300))
        try await table.transactWriteItems(
            TransactWriteItemsRequest(transactItems: [increment("b", limit: 5)], clientRequestToken: "new"))
        clock.advance(by: .seconds(301))
        // "old" is 601 s old: forgotten, so another request may use it.
        try await table.transactWriteItems(
            TransactWriteItemsRequest(transactItems: [increment("c", limit: 5)], clientRequestToken: "old"))
        // "new" is 301 s old: still bound to its first request.
        let mismatch = await expectTableError(.idempotentParameterMismatch) {
            try await table.transactWriteItems(
                TransactWriteItemsRequest(transactItems: [increment("c", limit: 5)], clientRequestToken: "new"))
        }
        #expect(mismatch != nil)
        #expect(try await table.get("USER#t", "c")?["n"] == .n(1))
    }

    @Test(
        "1,000 concurrent conditional increments with a limit of 50: exactly 50 succeed",
        arguments: TableContract.factories)
    func concurrentIncrements(factory: TableContract.Factory) async throws {
        let table = try await factory.make()
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<1_000 {
                group.addTask {
                    do {
                        _ = try await table.update(
                            "race", "counter", "ADD n :one", condition: "attribute_not_exists(n) OR n < :limit",
                            values: [":one": .n(1), ":limit": .n(50)]
                        )
                        return "ok"
                    } catch let error as TableError {
                        return error.code.rawValue
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        }
        let final = try await table.get("race", "counter")?["n"]
        // moto_server serves requests on threads with no lock around a table's items (its werkzeug
        // app locks only app creation), so a condition and its write can interleave with another
        // request's; DynamoDB, and InMemoryTable, apply each conditional write atomically.
        await factory.strictly("moto does not isolate concurrent conditional writes") {
            #expect(outcomes == ["ok": 50, "ConditionalCheckFailedException": 950])
            #expect(final == .n(50))
        }
    }
}
