import Foundation
import HTTPText
import InkraJSON
import NIOHTTP1
import OutboundHTTP
import Synchronization

/// A proxy between a DynamoDB client in another process (the built `bootstrap`) and a DynamoDB
/// endpoint (moto), over real sockets, that answers chosen operations as DynamoDB does when it
/// fails, and forwards the rest. It stands as well in front of the other JSON-protocol services
/// the runtime calls (SSM, Secrets Manager, Cognito user pools), answering as they fail
/// (``Fault/serviceError(status:type:message:)``). Faults are injected between processes, so what the runtime does
/// with them is what it would do on AWS.
///
/// The answers follow the DynamoDB API reference: "Error handling with DynamoDB" (HTTP 500
/// `InternalServerError`; HTTP 400 `ThrottlingException` and
/// `ProvisionedThroughputExceededException`, each a JSON body with `__type` and `message`), and
/// `BatchGetItem`'s `UnprocessedKeys` (a partial result the client must retry with exponential
/// backoff).
///
/// moto does not keep `TransactWriteItems`' `ClientRequestToken`s; the proxy does, as the
/// TransactWriteItems reference documents DynamoDB's: a repeat of a transaction that succeeded,
/// under the same token within ten minutes, succeeds without changing anything, and a repeat while
/// the first is still running is refused with `TransactionInProgressException`. So a client's retry
/// after a lost answer meets what it would meet on AWS, not a second application.
package final class DynamoDBFaultProxy: Sendable {
    /// What the proxy answers instead of forwarding.
    package enum Fault: Sendable {
        /// DynamoDB's error: an HTTP status and the exception's name (`InternalServerError`).
        case error(status: Int, type: String)
        /// Another JSON-protocol service's error (SSM, Secrets Manager, Cognito user pools): an
        /// HTTP status and a body of `__type` without a namespace and `message`, as they answer
        /// (`{"__type":"ThrottlingException","message":"Rate exceeded"}`).
        case serviceError(status: Int, type: String, message: String)
        /// A `BatchGetItem` answer that read nothing and leaves every key unprocessed.
        case unprocessedKeys
        /// The request forwarded and applied, then answered with DynamoDB's error all the same: an
        /// answer lost after the write, so the client cannot know it applied (for a transaction,
        /// a repeat under its `ClientRequestToken` is what learns it).
        case appliedThenError(status: Int, type: String)
    }

    /// An HTTP 500 `InternalServerError`.
    package static let internalServerError = Fault.error(status: 500, type: "InternalServerError")

    private let server: StubHTTPServer
    private let calls = CallCounts()

    private final class CallCounts: Sendable {
        let counts = Mutex([String: Int]())
        /// Transaction tokens: `false` while running, `true` once applied.
        let tokens = Mutex([String: Bool]())
        func next(_ operation: String) -> Int {
            counts.withLock { counts in
                counts[operation, default: 0] += 1
                return counts[operation]!
            }
        }
    }

    /// The proxy's address, for `AWS_ENDPOINT_URL_DYNAMODB`.
    package var url: HTTPURL { HTTPURL(string: "http://127.0.0.1:\(server.port)")! }

    /// How many requests of `operation` (`GetItem`, `TransactWriteItems`) arrived.
    package func count(_ operation: String) -> Int { calls.counts.withLock { $0[operation] ?? 0 } }

    /// Starts a proxy to `upstream`.
    /// - Parameters:
    ///   - upstream: the DynamoDB endpoint requests go on to.
    ///   - fault: the fault for an operation's `n`th request (from 1), or `nil` to forward it.
    package init(upstream: HTTPURL, fault: @escaping @Sendable (_ operation: String, _ number: Int) -> Fault?)
        async throws
    {
        let calls = self.calls
        let client = OutboundHTTPClient()
        server = try await StubHTTPServer { request in
            let target = request.headers.first { $0.0.lowercased() == "x-amz-target" }?.1 ?? ""
            let operation = String(target.split(separator: ".").last ?? "")
            let number = calls.next(operation)
            let json = [("Content-Type", "application/x-amz-json-1.0")]
            func failure(_ status: Int, _ type: String) -> StubHTTPServer.Answer {
                let body: JSONValue = [
                    "__type": .string("com.amazonaws.dynamodb.v20120810#\(type)"),
                    "message": "injected by the test's fault proxy",
                ]
                return StubHTTPServer.Answer(status: status, headers: json, body: body.jsonString)
            }
            func forward() async -> StubHTTPServer.Answer {
                let token =
                    operation == "TransactWriteItems"
                    ? (try? JSONParser.parse(request.body))?["ClientRequestToken"]?.string : nil
                if let token {
                    let seen = calls.tokens.withLock { tokens -> Bool? in
                        if let state = tokens[token] { return state }
                        tokens[token] = false
                        return nil
                    }
                    switch seen {
                    case true?: return StubHTTPServer.Answer(status: 200, headers: json, body: "{}")
                    case false?:
                        let body: JSONValue = [
                            "__type": "com.amazonaws.dynamodb.v20120810#TransactionInProgressException",
                            "message": "the transaction with this ClientRequestToken is still in progress",
                        ]
                        return StubHTTPServer.Answer(status: 400, headers: json, body: body.jsonString)
                    case nil: break
                    }
                }
                let forwarded = request.headers.filter {
                    !["host", "content-length", "connection"].contains($0.0.lowercased())
                }
                do {
                    let response = try await client.execute(
                        OutboundRequest(method: .POST, url: upstream, headers: forwarded, body: request.body),
                        timeout: .seconds(30))
                    if let token {
                        calls.tokens.withLock { tokens in
                            if response.status == 200 { tokens[token] = true } else { tokens[token] = nil }
                        }
                    }
                    return StubHTTPServer.Answer(
                        status: response.status, headers: json, body: String(decoding: response.body, as: UTF8.self))
                } catch {
                    if let token { calls.tokens.withLock { $0[token] = nil } }
                    return StubHTTPServer.Answer(status: 502, headers: [], body: "upstream failed: \(error)")
                }
            }
            switch fault(operation, number) {
            case .error(let status, let type)?:
                return failure(status, type)
            case .serviceError(let status, let type, let message)?:
                let body: JSONValue = ["__type": .string(type), "message": .string(message)]
                return StubHTTPServer.Answer(
                    status: status, headers: [("Content-Type", "application/x-amz-json-1.1")], body: body.jsonString)
            case .unprocessedKeys?:
                let asked = (try? JSONParser.parse(request.body))?["RequestItems"] ?? [:]
                let body: JSONValue = ["Responses": [:], "UnprocessedKeys": asked]
                return StubHTTPServer.Answer(status: 200, headers: json, body: body.jsonString)
            case .appliedThenError(let status, let type)?:
                _ = await forward()
                return failure(status, type)
            case nil:
                return await forward()
            }
        }
    }

    /// Stops the proxy.
    package func shutdown() { server.shutdown() }
}
