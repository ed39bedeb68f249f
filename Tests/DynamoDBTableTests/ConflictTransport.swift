import AWSServices
import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTime
import SingleTable
import Synchronization

/// DynamoDB as it answers requests that meet another transaction, over its JSON protocol, in front
/// of the emulator's endpoint over a real in-memory table, which answers everything else.
///
/// The answers follow the Amazon DynamoDB API Reference, `TransactWriteItems` (Errors:
/// `TransactionCanceledException` with its `CancellationReasons`, one per action in request order,
/// `None` for the actions that were not the cause, and the reason code `TransactionConflict`,
/// "Transaction is ongoing for the item"; `TransactionInProgressException`), the Developer Guide's
/// "Transaction conflict handling in DynamoDB" (a `PutItem`, `UpdateItem` or `DeleteItem` on an
/// item in an ongoing transaction is refused with `TransactionConflictException`; a transaction
/// that meets another is cancelled with `TransactionConflict`) and "Error handling with DynamoDB"
/// (HTTP 400, `__type` `com.amazonaws.dynamodb.v20120810#<Exception>`). moto and the in-memory
/// table never answer so.
final class ConflictTransport: DynamoDBTransport, Sendable {
    /// How one request is answered.
    enum Answer: Sendable, Hashable {
        /// The table answers.
        case table
        /// `TransactionCanceledException` with these reason codes, in action order.
        case cancelled([String])
        /// `TransactionConflictException`: the item is in another transaction (plain writes).
        case transactionConflict
        /// `TransactionInProgressException`: the same token's transaction is still running.
        case transactionInProgress
        /// No answer in time; the request never reached the table.
        case timeout

        /// A cancellation whose only cause is another transaction on the action at `index`.
        static func conflict(at index: Int, of count: Int) -> Answer {
            .cancelled((0..<count).map { $0 == index ? "TransactionConflict" : "None" })
        }
    }

    /// One request as the transport saw it.
    struct Sent: Sendable {
        var operation: String
        var token: String?
        /// The attempt's timeout, as the client set it.
        var timeout: TimeInterval
        /// When the request arrived.
        var at: ContinuousClock.Instant
        var answer: Answer
    }

    private struct State {
        var scripts: [String: [Answer]] = [:]
        var always: [String: Answer] = [:]
        var generator: SeededGenerator
        var sent: [Sent] = []
    }

    private let endpoint: LocalDynamoDB
    private let rate: Double
    private let state: Mutex<State>

    /// A transport in front of `table`; with a `rate`, each transaction and each plain write meets
    /// another transaction with that probability (drawn from `seed`) when no script says otherwise.
    init(table: InMemoryTable, rate: Double = 0, seed: UInt64 = 1) {
        endpoint = LocalDynamoDB(table: table, now: { Timestamp.now })
        self.rate = rate
        state = Mutex(State(generator: SeededGenerator(seed: seed)))
    }

    /// Answers the next requests for `operation` so, in order; the table answers after them.
    func script(_ operation: String, _ answers: [Answer]) {
        state.withLock { $0.scripts[operation, default: []] += answers }
    }

    /// Answers every request for `operation` so, once its script is done.
    func always(_ operation: String, _ answer: Answer) {
        state.withLock { $0.always[operation] = answer }
    }

    /// Every request so far.
    var sent: [Sent] { state.withLock { $0.sent } }

    /// The requests so far for one operation.
    func sent(_ operation: String) -> [Sent] { sent.filter { $0.operation == operation } }

    func send(_ request: DynamoDBHTTPRequest) async throws -> DynamoDBHTTPResponse {
        let body = try? JSONParser.parse(request.body)
        let token = body?["ClientRequestToken"]?.string
        let actions = body?["TransactItems"]?.array?.count ?? 0
        let answer: Answer = state.withLock { state in
            let answer: Answer
            if var script = state.scripts[request.operation], !script.isEmpty {
                answer = script.removeFirst()
                state.scripts[request.operation] = script
            } else if let always = state.always[request.operation] {
                answer = always
            } else if rate > 0, ["TransactWriteItems", "UpdateItem"].contains(request.operation),
                Double(state.generator.next() % 1_000_000) / 1_000_000 < rate
            {
                answer =
                    request.operation == "TransactWriteItems"
                    ? .conflict(at: Int(state.generator.next() % UInt64(max(actions, 1))), of: actions)
                    : .transactionConflict
            } else {
                answer = .table
            }
            state.sent.append(
                Sent(operation: request.operation, token: token, timeout: request.timeout, at: .now, answer: answer))
            return answer
        }
        switch answer {
        case .table:
            let target = request.headers.first { $0.0.lowercased() == "x-amz-target" }?.1
            let reply = await endpoint.respond(target: target, body: request.body)
            return DynamoDBHTTPResponse(status: reply.status, body: reply.body)
        case .cancelled(let codes):
            return Self.error(
                "TransactionCanceledException",
                [
                    "Message": .string(
                        "Transaction cancelled, please refer cancellation reasons for specific reasons "
                            + "[\(codes.joined(separator: ", "))]"),
                    "CancellationReasons": .array(codes.map(Self.reason)),
                ])
        case .transactionConflict:
            return Self.error("TransactionConflictException", ["message": "Transaction is ongoing for the item"])
        case .transactionInProgress:
            return Self.error(
                "TransactionInProgressException",
                ["message": "The transaction with the given request token is already in progress."])
        case .timeout:
            throw URLError(.timedOut)
        }
    }

    /// One entry of `CancellationReasons`, with DynamoDB's message for its code.
    private static func reason(_ code: String) -> JSONValue {
        let messages = [
            "TransactionConflict": "Transaction is ongoing for the item",
            "ConditionalCheckFailed": "The conditional request failed",
            "ThrottlingError": "Throughput exceeds the current capacity of your table or index.",
            "ProvisionedThroughputExceeded":
                "The level of configured provisioned throughput for the table was exceeded.",
        ]
        guard let message = messages[code] else { return ["Code": .string(code)] }
        return ["Code": .string(code), "Message": .string(message)]
    }

    /// DynamoDB's error answer: HTTP 400 and a JSON body naming the exception in `__type`.
    private static func error(_ type: String, _ fields: JSONObject) -> DynamoDBHTTPResponse {
        var body = fields
        body["__type"] = .string("com.amazonaws.dynamodb.v20120810#\(type)")
        return DynamoDBHTTPResponse(status: 400, body: JSONValue.object(body).jsonBytes)
    }
}
