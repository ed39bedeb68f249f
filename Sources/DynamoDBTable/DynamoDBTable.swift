import AWSServices
import HTTPText
import InkraCrypto
import InkraJSON
import InkraTime
import InkraTracing
import SingleTable

/// The `Table` protocol over DynamoDB's JSON protocol (`POST /`, `X-Amz-Target`), signed with
/// SigV4. DynamoDB's errors become the same `TableError` values the in-memory table throws;
/// throttling, 5xx and dropped connections are retried with capped exponential backoff and full
/// jitter, within ``Options/deadline`` and the deadline of the request it is bound to
/// (``bound(to:)``); every transaction
/// carries a `ClientRequestToken`, reused on retries, so a retry can never apply twice. A cancelled
/// transaction is not retried here: whether it may be, and under which token, is the caller's call.
package struct DynamoDBTable: Table {
    /// Timeouts and retries.
    package struct Options: Sendable {
        /// How long one attempt may take.
        package var requestTimeout: Double = 3
        /// The most attempts per call: 9, the first and 8 retries, as the AWS SDK for Java's
        /// legacy retry mode gives DynamoDB (`RetryMode.LEGACY`: "up to 3 retries, or more for
        /// services like DynamoDB (which has up to 8)"). Their backoffs add up to 3.6 s at most
        /// (1.8 s on average), so a request's deadline, or a clean-up's 2 s, usually ends them first.
        package var maximumAttempts = 9
        /// The first retry's backoff cap; doubles each retry.
        package var baseDelay: Double = 0.025
        /// The largest backoff cap.
        package var maximumDelay: Double = 1
        /// The most time a call may take, all attempts included; never past the deadline of the
        /// request the client is bound to, when it has one.
        package var deadline: Double = 10

        /// The defaults.
        package init() {}
    }

    /// Where requests go.
    package let endpoint: HTTPURL
    let signer: SigV4Signer
    let transport: any DynamoDBTransport
    let options: Options
    let sleep: @Sendable (Double) async throws -> Void
    let jitter: @Sendable () -> Double
    let now: @Sendable () -> Timestamp
    /// The request the calls are made for: its deadline and its trace; none by default.
    var scope = RequestScope()

    /// A table client.
    /// - Parameters:
    ///   - endpoint: `https://dynamodb.<region>.amazonaws.com`, or a local server.
    ///   - region: the region to sign for.
    ///   - credentials: the credentials to sign with.
    ///   - transport: how requests are sent.
    ///   - options: timeouts and retries.
    ///   - sleep: waits between retries (injected so tests do not wait).
    ///   - jitter: a random fraction in 0..<1 for the backoff.
    ///   - now: the clock requests are signed with and a call's ``Options/deadline`` is counted on.
    package init(
        endpoint: HTTPURL,
        region: String,
        credentials: AWSCredentials,
        transport: any DynamoDBTransport = HTTPClientTransport(),
        options: Options = Options(),
        sleep: @escaping @Sendable (Double) async throws -> Void = { try await Task.sleep(for: .seconds($0)) },
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        now: @escaping @Sendable () -> Timestamp
    ) {
        self.endpoint = endpoint
        signer = SigV4Signer(credentials: credentials, region: region, service: "dynamodb")
        self.transport = transport
        self.options = options
        self.sleep = sleep
        self.jitter = jitter
        self.now = now
    }

    /// A client of DynamoDB as `aws` says: its region, credentials, and `AWS_ENDPOINT_URL_DYNAMODB`
    /// or `AWS_ENDPOINT_URL` for a local server.
    /// - Throws: `AWSServiceError` naming the missing variable.
    package static func client(
        _ aws: AWSSettings,
        transport: any DynamoDBTransport = HTTPClientTransport(),
        options: Options = Options(),
        now: @escaping @Sendable () -> Timestamp
    ) throws(AWSServiceError) -> DynamoDBTable {
        let client = try aws.client(for: .dynamoDB)
        return DynamoDBTable(
            endpoint: client.endpoint, region: client.region, credentials: client.credentials, transport: transport,
            options: options, now: now)
    }

    package func getItem(_ request: GetItemRequest) async throws -> GetItemResponse {
        let answer = try await call("GetItem", RequestEncoding.get(request))
        return GetItemResponse(item: try Wire.item(answer["Item"]))
    }

    package func batchGetItem(_ request: BatchGetItemRequest) async throws -> BatchGetItemResponse {
        let answer = try await call("BatchGetItem", RequestEncoding.batchGet(request))
        var responses: [String: [Item]] = [:]
        for (table, items) in answer["Responses"]?.object?.pairs ?? [] {
            responses[table] = try (items.array ?? []).map { item throws(TableError) in try Wire.item(item) ?? [:] }
        }
        var unprocessed: [String: KeysAndAttributes] = [:]
        for (table, entry) in answer["UnprocessedKeys"]?.object?.pairs ?? [] {
            let keys = try (entry["Keys"]?.array ?? []).map { key throws(TableError) in try Wire.item(key) ?? [:] }
            if !keys.isEmpty {
                unprocessed[table] =
                    request.requestItems[table].map { original in
                        var copy = original
                        copy.keys = keys
                        return copy
                    } ?? KeysAndAttributes(keys: keys)
            }
        }
        return BatchGetItemResponse(responses: responses, unprocessedKeys: unprocessed)
    }

    package func putItem(_ request: PutItemRequest) async throws -> WriteItemResponse {
        WriteItemResponse(
            attributes: try Wire.item(try await call("PutItem", RequestEncoding.put(request))["Attributes"]))
    }

    package func updateItem(_ request: UpdateItemRequest) async throws -> WriteItemResponse {
        WriteItemResponse(
            attributes: try Wire.item(try await call("UpdateItem", RequestEncoding.update(request))["Attributes"]))
    }

    package func deleteItem(_ request: DeleteItemRequest) async throws -> WriteItemResponse {
        WriteItemResponse(
            attributes: try Wire.item(try await call("DeleteItem", RequestEncoding.delete(request))["Attributes"]))
    }

    package func query(_ request: QueryRequest) async throws -> QueryResponse {
        try page(try await call("Query", RequestEncoding.query(request)))
    }

    package func scan(_ request: ScanRequest) async throws -> QueryResponse {
        try page(try await call("Scan", RequestEncoding.scan(request)))
    }

    package func transactWriteItems(_ request: TransactWriteItemsRequest) async throws {
        let token = request.clientRequestToken ?? RandomUUID.string()
        _ = try await call("TransactWriteItems", RequestEncoding.transact(request, token: token))
    }

    private func page(_ answer: JSONValue) throws(TableError) -> QueryResponse {
        let items = try (answer["Items"]?.array ?? []).map { item throws(TableError) in try Wire.item(item) ?? [:] }
        return QueryResponse(
            items: items,
            scannedCount: answer["ScannedCount"]?.int ?? items.count,
            lastEvaluatedKey: try Wire.item(answer["LastEvaluatedKey"])
        )
    }

    /// Sends one operation, retrying what may succeed on a retry, within `options` and within what
    /// remains of the bound request's deadline (``bound(to:)``): each attempt's timeout is cut to it,
    /// no backoff outlasts it, and nothing is sent once it has passed.
    /// - Throws: ``TableError``; after an attempt whose outcome was never learned (a timeout, a
    ///   dropped connection, a 5xx, a transaction still in progress), its
    ///   ``TableError/followsUnknownOutcome`` is set.
    ///
    /// The call is a span of the invocation's trace (`DynamoDB`, namespace `aws`: the operation,
    /// the table, the retries, whether it was throttled, the consumed capacity DynamoDB returned),
    /// and each wait before a retry a `backoff` span inside it. Every item operation asks for its
    /// consumed capacity (`ReturnConsumedCapacity: TOTAL`, `reportsConsumedCapacity`), so the
    /// span's `aws.consumed_capacity` shows the units the bill counts.
    func call(_ operation: String, _ body: JSONValue) async throws(TableError) -> JSONValue {
        var body = body
        if Self.reportsConsumedCapacity.contains(operation), body["ReturnConsumedCapacity"] == nil {
            body.set("TOTAL", at: ["ReturnConsumedCapacity"])
        }
        return try await scope.span("DynamoDB", namespace: .aws) {
            (span, scope) async throws(TableError) -> JSONValue in
            span.operation = operation
            span.region = signer.region
            span.tableName = Self.tableName(in: body)
            do throws(TableError) {
                let answer = try await attempts(operation, body, span: &span, in: scope)
                span.status = 200
                span.consumedCapacity = Self.consumedCapacity(in: answer)
                return answer
            } catch {
                if Self.throttlingCodes.contains(error.code) {
                    span.throttle = true
                    span.error = true
                } else if [.internalServerError, .serviceUnavailable].contains(error.code) {
                    span.fault = true
                } else {
                    span.error = true
                }
                span.cause = error.code.rawValue
                throw error
            }
        }
    }

    /// The operations that take `ReturnConsumedCapacity` and answer `ConsumedCapacity` (the
    /// DynamoDB API reference of each; the table operations — `CreateTable`, `DescribeTable` —
    /// take none).
    static let reportsConsumedCapacity: Set<String> = [
        "GetItem", "BatchGetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan", "TransactWriteItems",
        "TransactGetItems", "BatchWriteItem",
    ]

    /// The errors DynamoDB throttles with.
    static let throttlingCodes: [TableError.Code] = [
        .provisionedThroughputExceeded, .throttling, .requestLimitExceeded,
    ]

    /// The table a request names: `TableName`, or the first one of a batch or a transaction.
    static func tableName(in body: JSONValue) -> String? {
        if let name = body["TableName"]?.string { return name }
        if let first = body["TransactItems"]?.array?.first?.object {
            return first.keys.first.flatMap { first[$0]?["TableName"]?.string }
        }
        return body["RequestItems"]?.object?.keys.first
    }

    /// The capacity units an answer says the call consumed (`ConsumedCapacity`, one entry or a list).
    static func consumedCapacity(in answer: JSONValue) -> Double? {
        guard let consumed = answer["ConsumedCapacity"] else { return nil }
        let entries = consumed.array ?? [consumed]
        let units = entries.compactMap { $0["CapacityUnits"]?.double }
        return units.isEmpty ? nil : units.reduce(0, +)
    }

    /// The attempts of one call; `span` learns the retries and whether any attempt was throttled.
    private func attempts(
        _ operation: String, _ body: JSONValue, span: inout TraceSpan, in scope: RequestScope
    ) async throws(TableError) -> JSONValue {
        let bytes = body.jsonBytes
        let started = now()
        let backoff = Backoff(base: .seconds(options.baseDelay), cap: .seconds(options.maximumDelay), jitter: jitter)
        var attempt = 0
        var unknownOutcome = false
        func failure(_ error: TableError) -> TableError {
            var error = error
            error.followsUnknownOutcome = error.followsUnknownOutcome || unknownOutcome
            return error
        }
        while true {
            attempt += 1
            span.retries = attempt - 1
            let left = scope.remaining().map(\.seconds)
            if let left, left <= 0 {
                throw failure(
                    TableError(.serviceUnavailable, "\(operation) was not sent: the request's deadline has passed"))
            }
            let error: TableError
            do {
                return try await send(operation, bytes, timeout: min(options.requestTimeout, left ?? .infinity))
            } catch let thrown {
                error = thrown
            }
            unknownOutcome = unknownOutcome || error.isOutcomeUnknown
            if Self.throttlingCodes.contains(error.code) { span.throttle = true }
            let budget = min(
                options.deadline - now().timeIntervalSince(started), scope.remaining().map(\.seconds) ?? .infinity)
            guard error.isRetryable, attempt < options.maximumAttempts, budget > 0 else { throw failure(error) }
            let delay = min(backoff.delay(after: attempt).seconds, budget)
            do {
                try await scope.span("backoff") { _, _ in try await sleep(delay) }
            } catch {
                throw failure(TableError(.serviceUnavailable, "cancelled while waiting to retry \(operation)"))
            }
        }
    }

    private func send(_ operation: String, _ body: [UInt8], timeout: Double) async throws(TableError)
        -> JSONValue
    {
        let headers = [
            ("Content-Type", "application/x-amz-json-1.0"), ("X-Amz-Target", "DynamoDB_20120810.\(operation)"),
        ]
        let signed = signer.sign(method: "POST", url: endpoint, headers: headers, body: body, date: now())
        let request = DynamoDBHTTPRequest(
            operation: operation,
            url: endpoint,
            headers: headers + signed.headers,
            body: body,
            timeout: timeout
        )
        let response: DynamoDBHTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw TableError(.serviceUnavailable, "\(operation) to \(endpoint.absoluteString) failed: \(error)")
        }
        let json = (try? JSONParser.parse(response.body)) ?? .null
        guard response.status == 200 else { throw ErrorMapping.error(status: response.status, body: json) }
        return json
    }
}

extension DynamoDBTable {
    /// This client, making its calls for the request of `scope`: within its deadline, in its trace.
    package func bound(to scope: RequestScope) -> DynamoDBTable {
        var table = self
        table.scope = scope
        return table
    }
}
