import InkraTime

/// The Lambda Runtime API's four calls, over one keep-alive connection.
/// Used from one serial queue at a time (the loop's I/O queue), hence `@unchecked Sendable`.
package final class RuntimeClient: @unchecked Sendable {
    private let connection: HTTPConnection
    private let base = "/2018-06-01/runtime"
    private let now: @Sendable () -> Timestamp
    /// The time an invocation gets when the Runtime API sends no deadline.
    static let defaultTimeout: Double = 3

    /// A client for `host:port` (the value of `AWS_LAMBDA_RUNTIME_API`).
    /// - Parameters:
    ///   - address: `host:port`.
    ///   - now: the clock a missing `Lambda-Runtime-Deadline-Ms` is counted from (Lambda's
    ///     default timeout, 3 s, after the invocation arrives).
    /// - Throws: ``RuntimeAPIError`` (``RuntimeAPIError/Code/configuration``) when the address is malformed.
    package init(address: String, now: @escaping @Sendable () -> Timestamp) throws {
        self.now = now
        let trimmed = address.hasPrefix("http://") ? String(address.dropFirst(7)) : address
        guard let colon = trimmed.lastIndex(of: ":"), let port = UInt16(trimmed[trimmed.index(after: colon)...]) else {
            throw RuntimeAPIError(.configuration, "AWS_LAMBDA_RUNTIME_API must be host:port, got \"\(address)\"")
        }
        var host = String(trimmed[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        connection = HTTPConnection(host: host, port: port)
    }

    /// Waits for the next invocation (a long poll).
    package func next() throws -> (InvocationContext, [UInt8]) {
        let response = try connection.send(method: "GET", path: "\(base)/invocation/next")
        guard response.status == 200 else {
            throw RuntimeAPIError.status(response.status, response.body)
        }
        guard let requestID = response.headers["lambda-runtime-aws-request-id"], !requestID.isEmpty else {
            throw RuntimeAPIError(.protocolError, "next invocation has no Lambda-Runtime-Aws-Request-Id")
        }
        let deadline =
            response.headers["lambda-runtime-deadline-ms"].flatMap(Double.init)
            .map { Timestamp(timeIntervalSince1970: $0 / 1000) } ?? now().addingTimeInterval(Self.defaultTimeout)
        let context = InvocationContext(
            requestID: requestID,
            deadline: deadline,
            invokedFunctionARN: response.headers["lambda-runtime-invoked-function-arn"],
            traceID: response.headers["lambda-runtime-trace-id"],
            clientContext: response.headers["lambda-runtime-client-context"],
            cognitoIdentity: response.headers["lambda-runtime-cognito-identity"]
        )
        return (context, response.body)
    }

    /// Posts an invocation's result.
    package func respond(to requestID: String, with body: [UInt8]) throws {
        try expectAccepted(
            connection.send(method: "POST", path: "\(base)/invocation/\(requestID)/response", body: body))
    }

    /// Posts an invocation's failure.
    package func fail(_ requestID: String, with failure: InvocationFailure) throws {
        try expectAccepted(
            connection.send(
                method: "POST",
                path: "\(base)/invocation/\(requestID)/error",
                headers: [
                    ("Content-Type", "application/json"), ("Lambda-Runtime-Function-Error-Type", failure.errorType),
                ],
                body: failure.json
            )
        )
    }

    /// Reports a failure to start.
    package func initializationFailed(_ failure: InvocationFailure) throws {
        try expectAccepted(
            connection.send(
                method: "POST",
                path: "\(base)/init/error",
                headers: [
                    ("Content-Type", "application/json"), ("Lambda-Runtime-Function-Error-Type", failure.errorType),
                ],
                body: failure.json
            )
        )
    }

    /// Drops the connection; the next call reconnects.
    package func reconnect() { connection.close() }

    private func expectAccepted(_ response: HTTPConnection.Response) throws {
        guard (200..<300).contains(response.status) else {
            throw RuntimeAPIError.status(response.status, response.body)
        }
    }
}
