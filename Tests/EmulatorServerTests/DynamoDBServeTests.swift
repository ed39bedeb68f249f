import EmulatorKit
import EmulatorServer
import Foundation
import InkraJSON
import InkraTestSupport
import NIOHTTP1
import SingleTable
import Testing

@Suite("serve: the DynamoDB-compatible endpoint over HTTP", .serialized)
struct DynamoDBServeTests {
    @Test("A Scan over HTTP lists what a request through the API just wrote, with a correct x-amz-crc32")
    func scanAfterRequest() async throws {
        try await ServeFixture.run { served in
            let endpoint = try #require(served.endpoints.dynamoDB)
            #expect(try await served.generate(token: try ServeFixture.token("scanned")).status == 200)
            let scan = try await served.send(
                .POST, endpoint, path: "/",
                headers: [
                    ("X-Amz-Target", "DynamoDB_20120810.Scan"), ("Content-Type", "application/x-amz-json-1.0"),
                ],
                body: Array(#"{"TableName":"inkra-usage"}"#.utf8))
            #expect(scan.status == 200)
            let items = try scan.json["Items"]?.array ?? []
            #expect(
                items.contains {
                    $0["PK"] == ["S": .string(userPartition("scanned"))] && $0["SK"] == ["S": "USAGE#2027-01"]
                })
            #expect(scan.header("x-amz-crc32") != nil)
            let unknown = try await served.send(
                .POST, endpoint, path: "/", headers: [("X-Amz-Target", "DynamoDB_20120810.Explode")], body: [])
            #expect(unknown.status == 400)
        }
    }

    @Test("--bootstrap keeps the runtime's usage in the endpoint: the runtime and the emulator share one table")
    func sharedTable() async throws {
        var configuration = ServeFixture.settings()
        configuration.runtimeExecutable = ChildProcess.built("bootstrap")
        try await ServeFixture.run(configuration) { served in
            try await RuntimeServeTests.waitForRuntime(served)
            let answer = try await served.generate(token: try ServeFixture.token("shared-user"))
            #expect(answer.status == 200)
            let items = served.stack.memoryTable?.snapshot() ?? []
            #expect(
                items.contains { $0["PK"] == .s(userPartition("shared-user")) },
                "the runtime's write is in the emulator's table")
            let usage = try await served.send(
                .GET, served.endpoints.api, path: "/usage",
                headers: [("Authorization", "Bearer \(try ServeFixture.token("shared-user"))")])
            #expect(try usage.json["used"] == 1)
        }
    }
}
