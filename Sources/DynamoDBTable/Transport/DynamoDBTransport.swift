import AsyncHTTPClient
import NIOCore
import NIOHTTP1

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One signed HTTP request to DynamoDB.
public struct DynamoDBHTTPRequest: Sendable {
    /// The operation, such as `TransactWriteItems`.
    public var operation: String
    /// The endpoint URL.
    public var url: URL
    /// The headers, signed.
    public var headers: [(String, String)]
    /// The JSON body.
    public var body: [UInt8]
    /// How long to wait for the answer.
    public var timeout: TimeInterval
}

/// DynamoDB's answer.
public struct DynamoDBHTTPResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The JSON body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// Sends requests to DynamoDB: AsyncHTTPClient in production; a counting or fault-injecting
/// stand-in in tests.
public protocol DynamoDBTransport: Sendable {
    /// Sends one request.
    /// - Throws: when the request could not be sent or answered (connection refused, reset, timeout).
    func send(_ request: DynamoDBHTTPRequest) async throws -> DynamoDBHTTPResponse
}

/// The production transport: AsyncHTTPClient with its keep-alive connection pool.
public struct HTTPClientTransport: DynamoDBTransport {
    let client: HTTPClient

    /// A transport over a client (the shared one by default).
    public init(client: HTTPClient = .shared) {
        self.client = client
    }

    public func send(_ request: DynamoDBHTTPRequest) async throws -> DynamoDBHTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = .POST
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        outgoing.body = .bytes(ByteBuffer(bytes: request.body))
        let response = try await client.execute(outgoing, timeout: .milliseconds(Int64(request.timeout * 1000)))
        let body = try await response.body.collect(upTo: 32 * 1024 * 1024)
        return DynamoDBHTTPResponse(status: Int(response.status.code), body: Array(buffer: body))
    }
}
