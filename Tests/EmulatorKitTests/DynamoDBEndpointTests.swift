import EmulatorKit
import Foundation
import InkraJSON
import InkraTime
import SingleTable
import Testing

@Suite("The emulator's DynamoDB endpoint, at the wire")
struct DynamoDBEndpointTests {
    let table = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
    var endpoint: LocalDynamoDB { LocalDynamoDB(table: table, now: { Timestamp.now }) }

    func call(_ endpoint: LocalDynamoDB, _ operation: String, _ body: String) async throws -> (Int, JSONValue) {
        let reply = await endpoint.respond(target: "DynamoDB_20120810.\(operation)", body: Array(body.utf8))
        #expect(reply.header("Content-Type") == "application/x-amz-json-1.0")
        #expect(reply.header("x-amzn-RequestId")?.count == 52)
        return (reply.status, try JSONParser.parse(reply.body))
    }

    @Test("PutItem, GetItem, UpdateItem with ReturnValues, DeleteItem: the bodies the AWS CLI sends and reads")
    func itemOperations() async throws {
        let endpoint = self.endpoint
        let put = try await call(
            endpoint, "PutItem",
            ##"{"TableName":"inkra-usage","Item":{"PK":{"S":"USER#a"},"SK":{"S":"USAGE#2026-11"},"n":{"N":"1"},"tags":{"SS":["x"]}}}"##
        )
        #expect(put.0 == 200 && put.1 == [:])
        let got = try await call(
            endpoint, "GetItem",
            ##"{"TableName":"inkra-usage","Key":{"PK":{"S":"USER#a"},"SK":{"S":"USAGE#2026-11"}}}"##)
        #expect(got.1["Item"]?["n"] == ["N": "1"])
        #expect(got.1["Item"]?["tags"] == ["SS": ["x"]])
        let updated = try await call(
            endpoint, "UpdateItem",
            ##"{"TableName":"inkra-usage","Key":{"PK":{"S":"USER#a"},"SK":{"S":"USAGE#2026-11"}},"UpdateExpression":"ADD #n :one","ExpressionAttributeNames":{"#n":"n"},"ExpressionAttributeValues":{":one":{"N":"1"}},"ReturnValues":"UPDATED_NEW"}"##
        )
        #expect(updated.1 == ["Attributes": ["n": ["N": "2"]]])
        let missing = try await call(
            endpoint, "GetItem", ##"{"TableName":"inkra-usage","Key":{"PK":{"S":"USER#b"},"SK":{"S":"X"}}}"##)
        #expect(missing.0 == 200 && missing.1 == [:])
        let deleted = try await call(
            endpoint, "DeleteItem",
            ##"{"TableName":"inkra-usage","Key":{"PK":{"S":"USER#a"},"SK":{"S":"USAGE#2026-11"}},"ReturnValues":"ALL_OLD"}"##
        )
        #expect(deleted.1["Attributes"]?["n"] == ["N": "2"])
        #expect(table.snapshot().isEmpty)
    }

    @Test("A failed condition: 400 ConditionalCheckFailedException with the item when ALL_OLD; nothing changes")
    func conditionalFailure() async throws {
        let endpoint = self.endpoint
        _ = try await call(
            endpoint, "PutItem", ##"{"TableName":"inkra-usage","Item":{"PK":{"S":"U"},"SK":{"S":"S"},"n":{"N":"5"}}}"##)
        let (status, body) = try await call(
            endpoint, "UpdateItem",
            ##"{"TableName":"inkra-usage","Key":{"PK":{"S":"U"},"SK":{"S":"S"}},"UpdateExpression":"ADD n :one","ConditionExpression":"n < :limit","ExpressionAttributeValues":{":one":{"N":"1"},":limit":{"N":"5"}},"ReturnValuesOnConditionCheckFailure":"ALL_OLD"}"##
        )
        #expect(status == 400)
        #expect(body["__type"] == "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException")
        #expect(body["message"] == "The conditional request failed")
        #expect(body["Item"]?["n"] == ["N": "5"])
        #expect(table.snapshot().first?["n"] == .n(5))
    }

    @Test("TransactWriteItems: a cancelled transaction names each action's reason and applies none")
    func transactionCancelled() async throws {
        let endpoint = self.endpoint
        let (status, body) = try await call(
            endpoint, "TransactWriteItems",
            ##"{"TransactItems":[{"Put":{"TableName":"inkra-usage","Item":{"PK":{"S":"T"},"SK":{"S":"1"}}}},{"ConditionCheck":{"TableName":"inkra-usage","Key":{"PK":{"S":"T"},"SK":{"S":"2"}},"ConditionExpression":"attribute_exists(PK)"}}],"ClientRequestToken":"tok-1"}"##
        )
        #expect(status == 400)
        #expect(body["__type"] == "com.amazonaws.dynamodb.v20120810#TransactionCanceledException")
        #expect(body["CancellationReasons"]?.array?.map { $0["Code"] } == ["None", "ConditionalCheckFailed"])
        #expect(table.snapshot().isEmpty)
    }

    @Test("Query on GSI1 and Scan pages with Limit and ExclusiveStartKey")
    func queryAndScan() async throws {
        let endpoint = self.endpoint
        for index in 0..<5 {
            _ = try await call(
                endpoint, "PutItem",
                ##"{"TableName":"inkra-usage","Item":{"PK":{"S":"USER#\##(index)"},"SK":{"S":"BLOCK"},"GSI1PK":{"S":"REFUSED#2026-11-17"},"GSI1SK":{"S":"USER#\##(index)"}}}"##
            )
        }
        let query = try await call(
            endpoint, "Query",
            ##"{"TableName":"inkra-usage","IndexName":"GSI1","KeyConditionExpression":"GSI1PK = :d","ExpressionAttributeValues":{":d":{"S":"REFUSED#2026-11-17"}},"ScanIndexForward":false,"Limit":2}"##
        )
        #expect(query.1["Count"] == 2 && query.1["ScannedCount"] == 2)
        #expect(query.1["Items"]?.array?.first?["GSI1SK"] == ["S": "USER#4"])
        #expect(query.1["LastEvaluatedKey"] != nil)
        var seen: [JSONValue] = []
        var start: JSONValue?
        repeat {
            let body =
                #"{"TableName":"inkra-usage","Limit":2"#
                + (start.map { ",\"ExclusiveStartKey\":\($0.jsonString)" } ?? "") + "}"
            let page = try await call(endpoint, "Scan", body)
            seen += page.1["Items"]?.array ?? []
            start = page.1["LastEvaluatedKey"]
        } while start != nil
        #expect(seen.count == 5)
    }

    @Test("BatchGetItem, DescribeTable, ListTables, CreateTable, DeleteTable and time to live")
    func tables() async throws {
        let endpoint = self.endpoint
        _ = try await call(
            endpoint, "PutItem", ##"{"TableName":"inkra-usage","Item":{"PK":{"S":"B"},"SK":{"S":"1"}}}"##)
        let batch = try await call(
            endpoint, "BatchGetItem",
            ##"{"RequestItems":{"inkra-usage":{"Keys":[{"PK":{"S":"B"},"SK":{"S":"1"}},{"PK":{"S":"B"},"SK":{"S":"2"}}]}}}"##
        )
        #expect(batch.1["Responses"]?["inkra-usage"]?.array?.count == 1)
        #expect(batch.1["UnprocessedKeys"] == [:])
        let described = try await call(endpoint, "DescribeTable", ##"{"TableName":"inkra-usage"}"##)
        let description = try #require(described.1["Table"])
        #expect(description["TableStatus"] == "ACTIVE" && description["ItemCount"] == 1)
        #expect(
            description["KeySchema"] == [
                ["AttributeName": "PK", "KeyType": "HASH"], ["AttributeName": "SK", "KeyType": "RANGE"],
            ])
        #expect(description["GlobalSecondaryIndexes"]?.array?.first?["IndexName"] == "GSI1")
        #expect(description["TableArn"] == "arn:aws:dynamodb:us-east-1:000000000000:table/inkra-usage")

        let created = try await call(
            endpoint, "CreateTable",
            ##"{"TableName":"notes","AttributeDefinitions":[{"AttributeName":"id","AttributeType":"N"}],"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}"##
        )
        #expect(created.0 == 200 && created.1["TableDescription"]?["TableName"] == "notes")
        let again = try await call(
            endpoint, "CreateTable",
            ##"{"TableName":"notes","AttributeDefinitions":[{"AttributeName":"id","AttributeType":"N"}],"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}]}"##
        )
        #expect(again.0 == 400 && again.1["__type"] == "com.amazonaws.dynamodb.v20120810#ResourceInUseException")
        _ = try await call(endpoint, "PutItem", ##"{"TableName":"notes","Item":{"id":{"N":"7"},"text":{"S":"hi"}}}"##)
        let note = try await call(endpoint, "GetItem", ##"{"TableName":"notes","Key":{"id":{"N":"7"}}}"##)
        #expect(note.1["Item"]?["text"] == ["S": "hi"])
        #expect(try await call(endpoint, "ListTables", "{}").1 == ["TableNames": ["inkra-usage", "notes"]])
        let ttl = try await call(endpoint, "DescribeTimeToLive", ##"{"TableName":"inkra-usage"}"##)
        #expect(ttl.1["TimeToLiveDescription"]?["AttributeName"] == "expiresAt")
        #expect(try await call(endpoint, "DeleteTable", ##"{"TableName":"notes"}"##).0 == 200)
        #expect(try await call(endpoint, "ListTables", "{}").1 == ["TableNames": ["inkra-usage"]])
    }

    @Test(
        "Bad requests get DynamoDB's error types and change nothing",
        arguments: [
            ("DynamoDB_20120810.Explode", "{}", 400, "com.amazon.coral.service#UnknownOperationException"),
            ("Nonsense", "{}", 400, "com.amazon.coral.service#UnknownOperationException"),
            ("DynamoDB_20120810.PutItem", "{not json", 400, "com.amazon.coral.service#SerializationException"),
            (
                "DynamoDB_20120810.GetItem", ##"{"TableName":"nope","Key":{"PK":{"S":"a"},"SK":{"S":"b"}}}"##, 400,
                "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException"
            ),
            (
                "DynamoDB_20120810.PutItem", ##"{"TableName":"inkra-usage","Item":{"PK":{"S":"a"}}}"##, 400,
                "com.amazonaws.dynamodb.v20120810#ValidationException"
            ),
            (
                "DynamoDB_20120810.PutItem", ##"{"TableName":"inkra-usage","Item":{"PK":{"Q":"a"},"SK":{"S":"b"}}}"##,
                400,
                "com.amazonaws.dynamodb.v20120810#ValidationException"
            ),
            (
                "DynamoDB_20120810.UpdateItem",
                ##"{"TableName":"inkra-usage","Key":{"PK":{"S":"a"},"SK":{"S":"b"}},"UpdateExpression":"SET = ="}"##,
                400, "com.amazonaws.dynamodb.v20120810#ValidationException"
            ),
            (
                "DynamoDB_20120810.Scan", ##"{"TableName":"inkra-usage","Limit":0}"##, 400,
                "com.amazonaws.dynamodb.v20120810#ValidationException"
            ),
        ])
    func badRequests(target: String, body: String, status: Int, type: String) async throws {
        _ = try await table.putItem(PutItemRequest(tableName: "inkra-usage", item: ["PK": .s("keep"), "SK": .s("me")]))
        let before = table.snapshot()
        let reply = await endpoint.respond(target: target, body: Array(body.utf8))
        #expect(reply.status == status)
        #expect(try JSONParser.parse(reply.body)["__type"]?.string == type)
        #expect(table.snapshot() == before)
    }

    @Test("x-amz-crc32 is the CRC-32 of the body, as botocore checks it")
    func checksum() async throws {
        let reply = await endpoint.respond(target: "DynamoDB_20120810.ListTables", body: Array("{}".utf8))
        #expect(reply.body == Array(##"{"TableNames":["inkra-usage"]}"##.utf8))
        // zlib.crc32(b'{"TableNames":["inkra-usage"]}')
        #expect(reply.header("x-amz-crc32") == "3163763683")
    }
}
