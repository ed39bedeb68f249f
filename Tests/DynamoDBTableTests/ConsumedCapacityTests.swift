import AWSServices
import DynamoDBTable
import Foundation
import HTTPText
import InkraJSON
import InkraTestSupport
import InkraTime
import InkraTracing
import SingleTable
import Synchronization
import Testing

/// Every item call asks DynamoDB for the capacity it consumed, and the call's trace span carries
/// it (X-Ray's `aws.consumed_capacity`). The DynamoDB API reference: `ReturnConsumedCapacity`
/// (`INDEXES | TOTAL | NONE`) is a parameter of GetItem, PutItem, UpdateItem, DeleteItem, Query,
/// Scan, BatchGetItem and TransactWriteItems, and `ConsumedCapacity` (`TableName`,
/// `CapacityUnits`; a list for batches and transactions) is in the answer; CreateTable and
/// DescribeTable take no such parameter.
@Suite("DynamoDB consumed capacity: asked for, and shown on the trace")
struct ConsumedCapacityTests {
    /// Answers every request with `body` and keeps the request bodies.
    final class Answering: DynamoDBTransport {
        let body: String
        let bodies = Mutex<[JSONValue]>([])
        init(_ body: String) { self.body = body }

        func send(_ request: DynamoDBHTTPRequest) async throws -> DynamoDBHTTPResponse {
            bodies.withLock { $0.append((try? JSONParser.parse(request.body)) ?? .null) }
            return DynamoDBHTTPResponse(status: 200, body: Array(body.utf8))
        }
    }

    static func client(_ transport: any DynamoDBTransport) -> DynamoDBTable {
        DynamoDBTable(
            endpoint: HTTPURL(string: "http://127.0.0.1:8000")!, region: "us-east-1",
            credentials: AWSCredentials(accessKeyID: "local", secretAccessKey: "local"), transport: transport,
            now: { Timestamp.now })
    }

    static func recorder() -> TraceRecorder {
        TraceRecorder(
            header: TraceHeader(root: "1-5759e988-bd862e3fe1be46a994272793", parent: "53995c3f42cd8ad8", sampled: true),
            now: { Timestamp.now.timeIntervalSince1970 })
    }

    static let key: Item = ["PK": .s("USER#u1"), "SK": .s("USAGE#2027-01")]

    @Test("A transaction asks for TOTAL; the units of every table it wrote are summed on its span")
    func transaction() async throws {
        let transport = Answering(
            #"{"ConsumedCapacity":[{"TableName":"inkra-usage","CapacityUnits":4.0,"WriteCapacityUnits":4.0}]}"#)
        let recorder = Self.recorder()
        try await Self.client(transport).bound(to: RequestScope(trace: Trace(recorder: recorder))).transactWriteItems(
            TransactWriteItemsRequest(transactItems: [
                .put(PutItemRequest(tableName: "inkra-usage", item: Self.key)),
                .update(
                    UpdateItemRequest(
                        tableName: "inkra-usage", key: Self.key, updateExpression: "SET n = :one",
                        expressionAttributes: ExpressionAttributes(values: [":one": .n(1)]))),
            ]))
        #expect(transport.bodies.withLock { $0.first?["ReturnConsumedCapacity"] } == "TOTAL")
        let span = try #require(recorder.spans.finished.first { $0.name == "DynamoDB" })
        #expect(span.operation == "TransactWriteItems")
        #expect(span.consumedCapacity == 4)
    }

    @Test("Item calls ask for TOTAL; table calls do not (DynamoDB would refuse the parameter)")
    func whichCalls() async throws {
        let transport = Answering(#"{"ConsumedCapacity":{"TableName":"inkra-usage","CapacityUnits":0.5}}"#)
        let recorder = Self.recorder()
        let client = Self.client(transport).bound(to: RequestScope(trace: Trace(recorder: recorder)))
        _ = try await client.getItem(GetItemRequest(tableName: "inkra-usage", key: Self.key))
        _ = try await client.putItem(PutItemRequest(tableName: "inkra-usage", item: Self.key))
        _ = try await client.deleteItem(DeleteItemRequest(tableName: "inkra-usage", key: Self.key))
        _ = try await client.query(
            QueryRequest(
                tableName: "inkra-usage", keyConditionExpression: "PK = :pk",
                expressionAttributes: ExpressionAttributes(values: [":pk": .s("USER#u1")])))
        _ = try? await client.describeTable(named: "inkra-usage")
        let asked = transport.bodies.withLock { $0.map { $0["ReturnConsumedCapacity"] } }
        #expect(asked == ["TOTAL", "TOTAL", "TOTAL", "TOTAL", nil])
        let units = recorder.spans.finished.filter { $0.name == "DynamoDB" }.prefix(4).map(\.consumedCapacity)
        #expect(units == [0.5, 0.5, 0.5, 0.5])
    }

    @Test(
        "Against moto: a put answers its consumed capacity",
        .enabled(if: MotoEndpoint.isAvailable, Comment(rawValue: MotoEndpoint.skipReason)))
    func againstMoto() async throws {
        let (client, name) = try await Live.makeLiveTable()
        let recorder = Self.recorder()
        _ = try await client.bound(to: RequestScope(trace: Trace(recorder: recorder))).putItem(
            PutItemRequest(
                tableName: name, item: ["PK": .s("USER#cc-\(UUID().uuidString)"), "SK": .s("USAGE#2027-01")]))
        let span = try #require(recorder.spans.finished.first { $0.name == "DynamoDB" })
        #expect((span.consumedCapacity ?? 0) > 0, "\(span)")
    }
}
