import AWSServices
import DynamoDBTable
import EmulatorKit
import Foundation
import HTTPText
import InkraTime
import SingleTable

/// Our DynamoDB client talking to the emulator's DynamoDB endpoint without a socket: the
/// transport hands each signed request to the endpoint and returns its answer as it would
/// arrive over HTTP. The contract suite runs through it, so the endpoint answers every request
/// our client makes exactly as the in-memory table answers it directly.
struct LocalEndpointTransport: DynamoDBTransport {
    let endpoint: LocalDynamoDB

    func send(_ request: DynamoDBHTTPRequest) async throws -> DynamoDBHTTPResponse {
        let target = request.headers.first { $0.0.lowercased() == "x-amz-target" }?.1
        let reply = await endpoint.respond(target: target, body: request.body)
        return DynamoDBHTTPResponse(status: reply.status, body: reply.body)
    }
}

enum LocalEndpoint {
    /// A fresh endpoint with the contract table created through it, and a client for it.
    static func freshTable() async throws -> any Table {
        let endpoint = LocalDynamoDB(
            table: InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now }),
            now: { Timestamp.now })
        let client = DynamoDBTable(
            endpoint: HTTPURL(string: "http://127.0.0.1:8000")!, region: "us-east-1",
            credentials: AWSCredentials(accessKeyID: "local", secretAccessKey: "local"),
            transport: LocalEndpointTransport(endpoint: endpoint), now: { Timestamp.now })
        try await client.createTable(.singleTable(named: contractTable), timeToLiveAttribute: "expiresAt")
        return client
    }
}
