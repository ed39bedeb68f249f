import HTTPText
import NIOHTTP1
import OutboundHTTP

/// One signed HTTP request to DynamoDB.
package struct DynamoDBHTTPRequest: Sendable {
    /// The operation, such as `TransactWriteItems`.
    package var operation: String
    /// The endpoint URL.
    package var url: HTTPURL
    /// The headers, signed.
    package var headers: [(String, String)]
    /// The JSON body.
    package var body: [UInt8]
    /// How long to wait for the answer.
    package var timeout: Double

    /// A request to send, its headers already signed.
    package init(operation: String, url: HTTPURL, headers: [(String, String)], body: [UInt8], timeout: Double) {
        self.operation = operation
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// DynamoDB's answer.
package struct DynamoDBHTTPResponse: Sendable {
    /// The HTTP status.
    package var status: Int
    /// The JSON body.
    package var body: [UInt8]

    /// Creates a response.
    package init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// Sends requests to DynamoDB: ``HTTPClientTransport`` in production; a counting or fault-injecting
/// stand-in in tests.
package protocol DynamoDBTransport: Sendable {
    /// Sends one request.
    /// - Throws: when the request could not be sent or answered (connection refused, reset, timeout).
    func send(_ request: DynamoDBHTTPRequest) async throws -> DynamoDBHTTPResponse
}

/// The production transport: the outbound HTTP client with its keep-alive connection pool.
package struct HTTPClientTransport: DynamoDBTransport {
    let client: OutboundHTTPClient

    /// A transport over the shared client.
    package init() {
        self.init(client: .shared)
    }

    /// A transport over a client.
    package init(client: OutboundHTTPClient) {
        self.client = client
    }

    package func send(_ request: DynamoDBHTTPRequest) async throws -> DynamoDBHTTPResponse {
        let outgoing = OutboundRequest(method: .POST, url: request.url, headers: request.headers, body: request.body)
        let response = try await client.execute(
            outgoing, timeout: .milliseconds(Int64(request.timeout * 1000)), maximumResponseBytes: 32 * 1024 * 1024)
        return DynamoDBHTTPResponse(status: response.status, body: response.body)
    }
}
