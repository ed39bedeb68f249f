import AWSServices
import DynamoDBTable
import Foundation
import HTTPText
import InkraJSON
import InkraTime
import SingleTable
import Testing

/// A transport that answers from a script and records what was sent.
final class ScriptedTransport: DynamoDBTransport, @unchecked Sendable {
    enum Step {
        case answer(Int, String)
        case fail
    }

    private let lock = NSLock()
    private var steps: [Step]
    private(set) var sent: [DynamoDBHTTPRequest] = []

    init(_ steps: [Step]) { self.steps = steps }

    var count: Int { lock.withLock { sent.count } }
    var requests: [DynamoDBHTTPRequest] { lock.withLock { sent } }

    func send(_ request: DynamoDBHTTPRequest) async throws -> DynamoDBHTTPResponse {
        let step: Step = lock.withLock {
            sent.append(request)
            return steps.isEmpty ? .answer(200, "{}") : steps.removeFirst()
        }
        switch step {
        case .answer(let status, let body): return DynamoDBHTTPResponse(status: status, body: Array(body.utf8))
        case .fail: throw URLError(.networkConnectionLost)
        }
    }
}

func table(_ transport: ScriptedTransport, attempts: Int = 4) -> DynamoDBTable {
    var options = DynamoDBTable.Options()
    options.maximumAttempts = attempts
    return DynamoDBTable(
        endpoint: HTTPURL(string: "http://127.0.0.1:8000")!,
        region: "us-east-1",
        credentials: AWSCredentials(accessKeyID: "test", secretAccessKey: "test"),
        transport: transport,
        options: options,
        sleep: { _ in },
        jitter: { 0.5 },
        now: { Timestamp.now }
    )
}

func header(_ request: DynamoDBHTTPRequest, _ name: String) -> String? {
    request.headers.first { $0.0.lowercased() == name.lowercased() }?.1
}

@Suite("DynamoDB wire protocol, errors and retries")
struct TransportTests {
    let update = UpdateItemRequest(
        tableName: "inkra-usage",
        key: ["PK": .s("USER#u"), "SK": .s("USAGE#2026-03")],
        updateExpression: "SET #s = :s ADD n :one",
        conditionExpression: "attribute_not_exists(n) OR n < :limit",
        expressionAttributes: ExpressionAttributes(
            names: ["#s": "status"], values: [":s": .s("x"), ":one": .n(1), ":limit": .n(5)]),
        returnValues: .allNew,
        returnValuesOnConditionCheckFailure: .allOld
    )

    @Test("A CreateTable whose first answer was lost finds its own table on the retry, and goes on to TTL")
    func createTableAfterLostAnswer() async throws {
        // The first attempt's connection drops (the table may have taken it); the retry is told the
        // table exists, as DynamoDB answers (ResourceInUseException); then DescribeTable, TTL.
        let transport = ScriptedTransport([
            .fail,
            .answer(
                400,
                #"{"__type":"com.amazonaws.dynamodb.v20120810#ResourceInUseException","message":"Table already exists: t"}"#
            ),
            .answer(200, #"{"Table":{"TableStatus":"ACTIVE"}}"#),
            .answer(200, "{}"),
        ])
        try await table(transport).createTable(.singleTable(named: "inkra-usage"))
        #expect(
            transport.requests.map(\.operation) == ["CreateTable", "CreateTable", "DescribeTable", "UpdateTimeToLive"])
        // Without a lost answer, "already exists" is someone else's table: an error.
        let taken = ScriptedTransport([
            .answer(
                400,
                #"{"__type":"com.amazonaws.dynamodb.v20120810#ResourceInUseException","message":"Table already exists: t"}"#
            )
        ])
        await #expect(throws: TableError.self) {
            try await table(taken).createTable(.singleTable(named: "inkra-usage"))
        }
    }

    @Test("An UpdateItem is one signed POST with DynamoDB's JSON")
    func requestShape() async throws {
        let transport = ScriptedTransport([.answer(200, #"{"Attributes":{"n":{"N":"1"}}}"#)])
        let response = try await table(transport).updateItem(update)
        #expect(response.attributes == ["n": .n(1)])
        let sent = try #require(transport.requests.first)
        #expect(header(sent, "X-Amz-Target") == "DynamoDB_20120810.UpdateItem")
        #expect(header(sent, "Content-Type") == "application/x-amz-json-1.0")
        #expect(header(sent, "Authorization")?.contains("/us-east-1/dynamodb/aws4_request") == true)
        let body = try JSONParser.parse(sent.body)
        #expect(body["TableName"] == "inkra-usage")
        #expect(body["Key"] == ["PK": ["S": "USER#u"], "SK": ["S": "USAGE#2026-03"]])
        #expect(body["UpdateExpression"] == "SET #s = :s ADD n :one")
        #expect(body["ExpressionAttributeNames"] == ["#s": "status"])
        #expect(body["ExpressionAttributeValues"]?[":limit"] == ["N": "5"])
        #expect(body["ReturnValues"] == "ALL_NEW")
        #expect(body["ReturnValuesOnConditionCheckFailure"] == "ALL_OLD")
    }

    @Test("Empty placeholder maps are left out, as DynamoDB requires")
    func noEmptyMaps() async throws {
        let transport = ScriptedTransport([.answer(200, "{}")])
        _ = try await table(transport).getItem(GetItemRequest(tableName: "t", key: ["PK": .s("a"), "SK": .s("b")]))
        let body = try JSONParser.parse(transport.requests[0].body)
        #expect(body["ExpressionAttributeValues"] == nil)
        #expect(body["ExpressionAttributeNames"] == nil)
    }

    @Test(
        "DynamoDB's errors map to the in-memory table's",
        arguments: [
            (
                #"{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","message":"The conditional request failed"}"#,
                TableError.Code.conditionalCheckFailed
            ),
            (#"{"__type":"com.amazonaws.dynamodb.v20120810#ValidationException","Message":"bad"}"#, .validation),
            (
                #"{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Requested resource not found"}"#,
                .resourceNotFound
            ),
            (
                #"{"__type":"com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException","message":"x"}"#,
                .idempotentParameterMismatch
            ),
        ]
    )
    func errors(body: String, code: TableError.Code) async throws {
        let transport = ScriptedTransport([.answer(400, body)])
        await #expect { _ = try await table(transport).updateItem(update) } throws: {
            ($0 as? TableError)?.code == code
        }
        #expect(transport.count == 1)
    }

    @Test("A cancelled transaction carries its reasons in order, with the old item")
    func cancellation() async throws {
        let body = #"""
            {"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]","CancellationReasons":[{"Code":"None"},{"Code":"ConditionalCheckFailed","Message":"The conditional request failed","Item":{"n":{"N":"3"}}}]}
            """#
        let transport = ScriptedTransport([.answer(400, body)])
        do {
            try await table(transport).transactWriteItems(
                TransactWriteItemsRequest(transactItems: [.update(update), .update(update)]))
            Issue.record("expected a cancellation")
        } catch let error as TableError {
            #expect(error.code == .transactionCanceled)
            #expect(error.cancellationReasons.map(\.code) == ["None", "ConditionalCheckFailed"])
            #expect(error.cancellationReasons[1].item == ["n": .n(3)])
        }
    }

    @Test("Throttling and 5xx are retried, with the same ClientRequestToken every time")
    func retries() async throws {
        let throttled = #"{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Rate exceeded"}"#
        let transport = ScriptedTransport([.answer(400, throttled), .answer(500, "{}"), .fail, .answer(200, "{}")])
        try await table(transport).transactWriteItems(TransactWriteItemsRequest(transactItems: [.update(update)]))
        #expect(transport.count == 4)
        let tokens = try transport.requests.map { try JSONParser.parse($0.body)["ClientRequestToken"] }
        #expect(Set(tokens).count == 1)
        #expect(tokens[0]?.string?.isEmpty == false)
    }

    @Test("A validation error is not retried; retries stop after the last attempt")
    func giveUp() async throws {
        let invalid = ScriptedTransport([.answer(400, #"{"__type":"x#ValidationException","message":"no"}"#)])
        await #expect(throws: TableError.self) { _ = try await table(invalid).updateItem(update) }
        #expect(invalid.count == 1)
        let down = ScriptedTransport([.fail, .fail, .fail, .fail, .fail])
        await #expect { _ = try await table(down, attempts: 3).updateItem(update) } throws: {
            ($0 as? TableError)?.code == .serviceUnavailable
        }
        #expect(down.count == 3)
    }

    @Test("Settings come from the environment, and a missing one is named")
    func environment() throws {
        let table = try tableFromEnvironment([
            "AWS_REGION": "eu-west-1", "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b",
            "AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:9999",
        ])
        #expect(table.endpoint.absoluteString == "http://127.0.0.1:9999")
        let real = try tableFromEnvironment([
            "AWS_REGION": "eu-west-1", "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b",
        ])
        #expect(real.endpoint.absoluteString == "https://dynamodb.eu-west-1.amazonaws.com")
        #expect { try tableFromEnvironment(["AWS_REGION": "x"]) } throws: {
            "\($0)".contains("AWS_ACCESS_KEY_ID")
        }
        #expect { try tableFromEnvironment([:]) } throws: { "\($0)".contains("AWS_REGION") }
        #expect {
            try tableFromEnvironment([
                "AWS_REGION": "x", "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b", "AWS_ENDPOINT_URL": "nope",
            ])
        } throws: { "\($0)".contains("AWS_ENDPOINT_URL") }
    }
}

/// `DynamoDBTable.client` with the settings read from `environment` and the real clock (only the
/// settings matter here).
private func tableFromEnvironment(_ environment: [String: String]) throws -> DynamoDBTable {
    try DynamoDBTable.client(AWSSettings(environment: environment), now: { Timestamp.now })
}
