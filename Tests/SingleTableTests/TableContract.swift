import DynamoDBTable
import Foundation
import InkraTestSupport
import InkraTime
import SingleTable
import Testing

/// The implementations of `Table` the contract suite runs against. The DynamoDB-backed table
/// joins this list when a DynamoDB-compatible endpoint is configured.
enum TableContract {
    /// A fresh, empty table of the single-table design under a unique name.
    struct Factory: Sendable, CustomStringConvertible {
        let description: String
        /// Whether this is moto, which validates less than DynamoDB in a few known places.
        var isMoto = false
        let make: @Sendable () async throws -> any Table

        /// Runs a check that DynamoDB and the in-memory table pass; on moto, a failure is recorded
        /// as a known difference, by name, instead of failing the suite.
        func strictly(_ difference: Comment, _ body: () async throws -> Void) async rethrows {
            if isMoto {
                await withKnownIssue(difference, isIntermittent: true) { try await body() }
            } else {
                try await body()
            }
        }
    }

    static var factories: [Factory] {
        var list = [
            Factory(description: "InMemoryTable") {
                InMemoryTable(schema: .singleTable(named: contractTable), now: { Timestamp.now })
            },
            Factory(description: "DynamoDBTable over the emulator's DynamoDB endpoint") {
                try await LocalEndpoint.freshTable()
            },
        ]
        if MotoEndpoint.isAvailable {
            list.append(
                Factory(description: "DynamoDBTable on moto", isMoto: true) {
                    try await LiveDynamoDB.freshTable()
                }
            )
        }
        return list
    }
}

/// The name every contract table answers to.
let contractTable = "contract"

/// A key of the single-table design.
func key(_ pk: String, _ sk: String) -> Item { ["PK": .s(pk), "SK": .s(sk)] }

extension Table {
    func put(_ item: Item) async throws {
        _ = try await putItem(PutItemRequest(tableName: contractTable, item: item))
    }

    func get(_ pk: String, _ sk: String) async throws -> Item? {
        try await getItem(GetItemRequest(tableName: contractTable, key: key(pk, sk), consistentRead: true)).item
    }

    func update(
        _ pk: String,
        _ sk: String,
        _ expression: String,
        condition: String? = nil,
        names: [String: String] = [:],
        values: [String: AttributeValue] = [:],
        returning: ReturnValues = .none
    ) async throws -> Item? {
        try await updateItem(
            UpdateItemRequest(
                tableName: contractTable,
                key: key(pk, sk),
                updateExpression: expression,
                conditionExpression: condition,
                expressionAttributes: ExpressionAttributes(names: names, values: values),
                returnValues: returning
            )
        ).attributes
    }

    /// Whether a conditional put succeeds on the item `PK=c, SK=item`.
    func conditionHolds(_ condition: String, names: [String: String] = [:], values: [String: AttributeValue] = [:])
        async throws -> Bool
    {
        do {
            _ = try await updateItem(
                UpdateItemRequest(
                    tableName: contractTable,
                    key: key("c", "item"),
                    updateExpression: "SET touched = :touched",
                    conditionExpression: condition,
                    expressionAttributes: ExpressionAttributes(
                        names: names,
                        values: values.merging([":touched": .bool(true)]) { a, _ in a }
                    )
                )
            )
            return true
        } catch let error as TableError where error.code == .conditionalCheckFailed {
            return false
        }
    }
}

/// Expects a `TableError` with a code (and optionally a message part).
///
/// Returns the error when it matches. Otherwise it records an issue at the caller's line that says
/// what happened instead (nothing thrown, another code or message, another error type), and returns
/// `nil`.
func expectTableError(
    _ code: TableError.Code,
    _ message: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> TableError? {
    let expected = "TableError \(code)" + (message.map { " containing \"\($0)\"" } ?? "")
    do {
        try await body()
        Issue.record("expected \(expected), but nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as TableError {
        guard error.code == code, message.map(error.message.contains) ?? true else {
            Issue.record(
                "expected \(expected), but TableError \(error.code) \"\(error.message)\" was thrown",
                sourceLocation: sourceLocation)
            return nil
        }
        return error
    } catch {
        Issue.record(
            "expected \(expected), but \(type(of: error)) was thrown: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
