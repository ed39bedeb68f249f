import AWSServices
import DynamoDBTable
import Foundation
import HTTPText
import InkraTime
import SingleTable
import Testing

/// The table client's own retries against the request's deadline, and what its errors say about
/// attempts whose outcome it never learned.
@Suite("The table client within the request's deadline")
struct RequestDeadlineTests {
    static func client(
        _ transport: ConflictTransport,
        options: DynamoDBTable.Options = DynamoDBTable.Options(),
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = { _ in }
    ) -> DynamoDBTable {
        DynamoDBTable(
            endpoint: HTTPURL(string: "http://127.0.0.1:8000")!, region: "us-east-1",
            credentials: AWSCredentials(accessKeyID: "local", secretAccessKey: "local"), transport: transport,
            options: options, sleep: sleep, jitter: { 0.5 }, now: { Timestamp.now })
    }

    static let key: Item = ["PK": .s("USER#u1"), "SK": .s("USAGE#2027-01")]

    static func table() -> InMemoryTable {
        InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
    }

    static let update = UpdateItemRequest(
        tableName: "inkra-usage", key: key, updateExpression: "SET lastInterviewDate = :now",
        expressionAttributes: ExpressionAttributes(values: [":now": .s("2027-01-15T08:00:00Z")]))

    @Test("Nothing is sent once the request's deadline has passed")
    func nothingAfterDeadline() async throws {
        let transport = ConflictTransport(table: Self.table())
        let client = Self.client(transport).bound(to: RequestScope(deadline: .now - .seconds(1)))
        await #expect {
            _ = try await client.getItem(GetItemRequest(tableName: "inkra-usage", key: Self.key))
        } throws: {
            ($0 as? TableError)?.code == .serviceUnavailable
        }
        #expect(transport.sent.isEmpty)
    }

    @Test("Each attempt's timeout is cut to what remains of the request's deadline")
    func timeoutCut() async throws {
        let transport = ConflictTransport(table: Self.table())
        var options = DynamoDBTable.Options()
        options.requestTimeout = 100
        _ = try await Self.client(transport, options: options).bound(to: RequestScope(deadline: .now + .seconds(30)))
            .getItem(GetItemRequest(tableName: "inkra-usage", key: Self.key))
        _ = try await Self.client(transport, options: options).getItem(
            GetItemRequest(tableName: "inkra-usage", key: Self.key))
        let timeouts = transport.sent.map(\.timeout)
        #expect(timeouts.count == 2)
        #expect(timeouts[0] > 0 && timeouts[0] <= 30, "\(timeouts)")
        #expect(timeouts[1] == 100)
    }

    @Test("The table client stops retrying at the request's deadline, whatever its own limits")
    func retriesStopAtDeadline() async throws {
        let transport = ConflictTransport(table: Self.table())
        transport.always("UpdateItem", .timeout)
        var options = DynamoDBTable.Options()
        options.maximumAttempts = 10_000
        options.deadline = 60
        options.baseDelay = 0.01
        options.maximumDelay = 0.02
        let deadline = ContinuousClock.now + .milliseconds(500)
        let client = Self.client(transport, options: options) { try await Task.sleep(for: .seconds($0)) }
            .bound(to: RequestScope(deadline: deadline))
        await #expect {
            _ = try await client.updateItem(Self.update)
        } throws: {
            ($0 as? TableError)?.code == .serviceUnavailable
        }
        let sent = transport.sent
        #expect(sent.allSatisfy { $0.at < deadline + .milliseconds(250) }, "kept retrying past the request's deadline")
        #expect(sent.count < 10_000)
    }

    @Test("A cancellation after a timed-out attempt says the transaction may have been applied")
    func cancellationAfterTimeout() async throws {
        let transport = ConflictTransport(table: Self.table())
        transport.script("TransactWriteItems", [.timeout, .conflict(at: 0, of: 1)])
        let error = await #expect(throws: TableError.self) {
            try await Self.client(transport).transactWriteItems(
                TransactWriteItemsRequest(transactItems: [.update(Self.update)]))
        }
        #expect(error?.code == .transactionCanceled)
        #expect(error?.isTransientCancellation == true)
        #expect(error?.followsUnknownOutcome == true)
        #expect(error?.isOutcomeUnknown == true)
        let tokens = transport.sent.map(\.token)
        #expect(tokens.count == 2 && Set(tokens).count == 1, "\(tokens)")
    }

    @Test("TransactionInProgressException is its own error, resent by the client under the same token")
    func inProgressResent() async throws {
        let transport = ConflictTransport(table: Self.table())
        transport.script("TransactWriteItems", [.transactionInProgress, .transactionInProgress])
        try await Self.client(transport).transactWriteItems(
            TransactWriteItemsRequest(transactItems: [.update(Self.update)]))
        let tokens = transport.sent.map(\.token)
        #expect(tokens.count == 3 && Set(tokens).count == 1, "\(tokens)")

        let stuck = ConflictTransport(table: Self.table())
        stuck.always("TransactWriteItems", .transactionInProgress)
        let error = await #expect(throws: TableError.self) {
            try await Self.client(stuck).transactWriteItems(
                TransactWriteItemsRequest(transactItems: [.update(Self.update)]))
        }
        #expect(error?.code == .transactionInProgress)
        #expect(error?.isOutcomeUnknown == true)
        // The first try and 8 retries: what the AWS SDK for Java's legacy retry mode gives DynamoDB
        // (SDK for Java 2.x API reference, `software.amazon.awssdk.core.retry.RetryMode`, LEGACY).
        #expect(stuck.sent.count == 9)
    }

    @Test("A plain write in another transaction's way is TransactionConflictException, a conflict")
    func plainWriteConflict() async throws {
        let transport = ConflictTransport(table: Self.table())
        transport.always("UpdateItem", .transactionConflict)
        let error = await #expect(throws: TableError.self) {
            _ = try await Self.client(transport).updateItem(Self.update)
        }
        #expect(error?.code == .transactionConflict)
        #expect(error?.isConflict == true)
        #expect(error?.isOutcomeUnknown == false)
        #expect(error?.message == "Transaction is ongoing for the item")
    }
}
