import DynamoDBTable
import Foundation
import InkraHandlers
import InkraTestSupport
import InkraTime
import SingleTable
import Testing

/// The same seeded random sequence of puts, conditional updates, transactions and queries against
/// the in-memory table and a DynamoDB-compatible server must give the same outcomes and leave the
/// same items.
@Suite(
    "Differential: in-memory table vs DynamoDB",
    .enabled(if: MotoEndpoint.isAvailable, Comment(rawValue: MotoEndpoint.skipReason)))
struct DifferentialTests {
    static func operations(seed: UInt64, table: String, count: Int) -> [TransactWriteItem] {
        var random = SeededGenerator(seed: seed)
        let users = ["u1", "u2", "u3"]
        let sorts = ["USAGE#2026-03", "RATELIMIT#2026-03-10", "RATELIMIT#2026-03-10T10"]
        return (0..<count).map { _ in
            let key: Item = [
                "PK": .s("USER#\(users.randomElement(using: &random)!)"),
                "SK": .s(sorts.randomElement(using: &random)!),
            ]
            let limit = Int.random(in: 1...4, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                var item = key
                item["n"] = .n(Int.random(in: 0...3, using: &random))
                item["tag"] = .s(["a", "b"].randomElement(using: &random)!)
                return .put(PutItemRequest(tableName: table, item: item))
            case 1:
                return .update(
                    UpdateItemRequest(
                        tableName: table, key: key, updateExpression: "ADD n :one SET tag = if_not_exists(tag, :t)",
                        conditionExpression: "attribute_not_exists(n) OR n < :limit",
                        expressionAttributes: ExpressionAttributes(values: [
                            ":one": .n(1), ":limit": .n(limit), ":t": .s("c"),
                        ])
                    )
                )
            case 2:
                return .delete(
                    DeleteItemRequest(
                        tableName: table, key: key, conditionExpression: "tag = :a",
                        expressionAttributes: ExpressionAttributes(values: [":a": .s("a")])
                    )
                )
            default:
                return .conditionCheck(
                    .init(tableName: table, key: key, conditionExpression: "attribute_exists(n)")
                )
            }
        }
    }

    /// Runs an operation: single writes alone, condition checks as two-action transactions.
    static func run(_ action: TransactWriteItem, on table: any Table, pairedWith other: TransactWriteItem) async
        -> String
    {
        do {
            switch action {
            case .put(let request): _ = try await table.putItem(request)
            case .update(let request): _ = try await table.updateItem(request)
            case .delete(let request): _ = try await table.deleteItem(request)
            case .conditionCheck:
                try await table.transactWriteItems(TransactWriteItemsRequest(transactItems: [action, other]))
            }
            return "ok"
        } catch let error as TableError {
            return error.code.rawValue
                + (error.cancellationReasons.isEmpty ? "" : "\(error.cancellationReasons.map(\.code))")
        } catch {
            return "\(error)"
        }
    }

    @Test("Seeded sequences give identical outcomes and items", arguments: [UInt64(1), 2, 3])
    func sameResults(seed: UInt64) async throws {
        let (dynamo, name) = try await Live.makeLiveTable()
        let memory = InMemoryTable(schema: .singleTable(named: name), now: { Timestamp.now })
        let operations = Self.operations(seed: seed, table: name, count: 60)
        for (index, action) in operations.enumerated() {
            var companion = operations[(index + 1) % operations.count]
            if case .conditionCheck = companion {
                companion = .put(
                    PutItemRequest(tableName: name, item: ["PK": .s("USER#z"), "SK": .s("side-\(index)")]))
            }
            let here = await Self.run(action, on: memory, pairedWith: companion)
            let there = await Self.run(action, on: dynamo, pairedWith: companion)
            #expect(here == there, "operation \(index): \(action)")
        }
        for user in ["u1", "u2", "u3", "z"] {
            let query = QueryRequest(
                tableName: name, keyConditionExpression: "PK = :pk",
                expressionAttributes: ExpressionAttributes(values: [":pk": .s("USER#\(user)")]), consistentRead: true
            )
            let a = try await memory.query(query).items
            let b = try await dynamo.query(query).items
            #expect(a == b, "items of \(user)")
        }
    }
}
