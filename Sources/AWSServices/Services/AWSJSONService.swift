import HTTPText
import InkraJSON
import InkraTime

/// Calls to an AWS service's JSON protocol (`POST /`, `X-Amz-Target`, SigV4): what the runtime
/// reads once at start (an SSM parameter, the tier limits; a Secrets Manager secret, the model's
/// API key or the server's secret) and Cognito's administrator calls (account deletion). It shares
/// the table client's signer and transport.
///
/// A call that fails in a way a later attempt may not (throttling, a 5xx, a dropped connection) is
/// tried again after a capped exponential backoff with full jitter (`Backoff`, as the table
/// client waits), at most ``Retries/maximumAttempts`` times, within ``Retries/deadline`` and never
/// past the deadline of the request it is bound to (``bound(to:)``): a throttled `GetParameter` in a burst of cold starts, or
/// one 5xx during an account's deletion, no longer fails the start-up or the request.
package struct AWSJSONService: RequestBound {
    /// How often and for how long a call is tried.
    package struct Retries: Sendable {
        /// The most attempts per call: 5, the first and 4 retries — one more than the AWS SDKs'
        /// legacy retry mode's 3 retries, as a burst of cold starts throttles `GetParameter` (whose
        /// default throughput is 40 transactions per second) for longer than one request's retries.
        package var maximumAttempts = 5
        /// The first retry's backoff cap; doubles each retry.
        package var baseDelay: Double = 0.1
        /// The largest backoff cap. The four waits add up to 1.5 s at most (0.75 s on average).
        package var maximumDelay: Double = 1
        /// The most time a call may take, all attempts included (or one attempt's timeout, when
        /// the caller gives a longer one), and never past the bound request's deadline: 5 s.
        /// Start-up has no request deadline; this bounds each of its reads (the limits, a secret),
        /// so a throttled start-up still fits Lambda's 10 s Init phase, which Lambda tries again at
        /// the first invocation when it does not.
        package var deadline: Double = 5

        /// The defaults.
        package init() {}
    }

    /// The service's endpoint.
    package let endpoint: HTTPURL
    let signer: SigV4Signer
    let targetPrefix: String
    let transport: any DynamoDBTransport
    let now: @Sendable () -> Timestamp
    let retries: Retries
    let sleep: @Sendable (Double) async throws -> Void
    let jitter: @Sendable () -> Double
    /// The request the calls are made for; none by default (start-up's reads).
    var scope = RequestScope()

    /// A client of a service.
    /// - Parameters:
    ///   - endpoint: where the requests go.
    ///   - signer: what signs them (the region, the credentials, the service's signing name).
    ///   - targetPrefix: the `X-Amz-Target` prefix, `AmazonSSM`.
    ///   - transport: what sends them.
    ///   - retries: how often and for how long a call is tried.
    ///   - sleep: waits between attempts (injected so tests do not wait).
    ///   - jitter: a random fraction in 0..<1 for the backoff.
    ///   - now: the clock the requests are signed at.
    init(
        endpoint: HTTPURL, signer: SigV4Signer, targetPrefix: String, transport: any DynamoDBTransport,
        retries: Retries = Retries(),
        sleep: @escaping @Sendable (Double) async throws -> Void = { try await Task.sleep(for: .seconds($0)) },
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        now: @escaping @Sendable () -> Timestamp
    ) {
        self.endpoint = endpoint
        self.signer = signer
        self.targetPrefix = targetPrefix
        self.transport = transport
        self.retries = retries
        self.sleep = sleep
        self.jitter = jitter
        self.now = now
    }

    /// This client, waiting between attempts with `sleep` and drawing the backoff's fraction from
    /// `jitter`: a test's, to see the waits without making them.
    /// - Parameters:
    ///   - sleep: waits a number of seconds.
    ///   - jitter: a fraction in 0...1 of each backoff's ceiling.
    /// - Returns: the same client, but for those two.
    package func waiting(
        with sleep: @escaping @Sendable (Double) async throws -> Void,
        jitter: @escaping @Sendable () -> Double
    ) -> AWSJSONService {
        AWSJSONService(
            endpoint: endpoint, signer: signer, targetPrefix: targetPrefix, transport: transport, retries: retries,
            sleep: sleep, jitter: jitter, now: now)
    }

    /// SSM (`AmazonSSM.*`), at `AWS_ENDPOINT_URL_SSM`, else `AWS_ENDPOINT_URL`, else AWS's.
    /// - Throws: ``AWSServiceError/invalidConfiguration`` naming a missing variable.
    package static func ssm(
        _ aws: AWSSettings, transport: any DynamoDBTransport = HTTPClientTransport(), retries: Retries = Retries(),
        now: @escaping @Sendable () -> Timestamp
    ) throws(AWSServiceError) -> AWSJSONService {
        try service(.ssm, target: "AmazonSSM", aws, transport: transport, retries: retries, now: now)
    }

    /// Secrets Manager (`secretsmanager.*`), at `AWS_ENDPOINT_URL_SECRETS_MANAGER`, else
    /// `AWS_ENDPOINT_URL`, else AWS's.
    /// - Throws: ``AWSServiceError/invalidConfiguration`` naming a missing variable.
    package static func secretsManager(
        _ aws: AWSSettings, transport: any DynamoDBTransport = HTTPClientTransport(), retries: Retries = Retries(),
        now: @escaping @Sendable () -> Timestamp
    ) throws(AWSServiceError) -> AWSJSONService {
        try service(.secretsManager, target: "secretsmanager", aws, transport: transport, retries: retries, now: now)
    }

    /// Cognito user pools (`AWSCognitoIdentityProviderService.*`, signed as `cognito-idp`), at
    /// `AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER`, else `AWS_ENDPOINT_URL`, else AWS's.
    /// - Parameters:
    ///   - aws: the region, credentials and endpoints.
    ///   - region: the region to call instead of the settings' (a pool's own).
    ///   - transport: what sends the signed requests.
    ///   - retries: how often and for how long a call is tried.
    ///   - now: the clock the requests are signed at.
    /// - Throws: ``AWSServiceError/invalidConfiguration`` naming a missing variable.
    package static func cognitoIdentityProvider(
        _ aws: AWSSettings, region: String? = nil, transport: any DynamoDBTransport = HTTPClientTransport(),
        retries: Retries = Retries(), now: @escaping @Sendable () -> Timestamp
    ) throws(AWSServiceError) -> AWSJSONService {
        try service(
            .cognitoIdentityProvider, target: "AWSCognitoIdentityProviderService", aws, region: region,
            transport: transport, retries: retries, now: now)
    }

    private static func service(
        _ service: AWSSettings.Service, target: String, _ aws: AWSSettings, region: String? = nil,
        transport: any DynamoDBTransport, retries: Retries, now: @escaping @Sendable () -> Timestamp
    ) throws(AWSServiceError) -> AWSJSONService {
        let client = try aws.client(for: service, region: region)
        return AWSJSONService(
            endpoint: client.endpoint,
            signer: SigV4Signer(credentials: client.credentials, region: client.region, service: service.name),
            targetPrefix: target, transport: transport, retries: retries, now: now)
    }

    /// This client, making its calls for the request of `scope`: within its deadline.
    package func bound(to scope: RequestScope) -> AWSJSONService {
        var service = self
        service.scope = scope
        return service
    }

    /// Calls `operation` with a JSON body and returns the answer's JSON, trying again what may
    /// succeed on another attempt (``AWSServiceError/isRetryable``) within ``Retries``: each
    /// attempt's timeout is cut to what remains of the call's ``Retries/deadline`` (or of
    /// `timeout`, when that is longer) and of the
    /// bound request's deadline, no backoff outlasts either, and nothing is sent once one has
    /// passed.
    /// - Parameters:
    ///   - operation: the operation, `GetParameter`.
    ///   - body: its JSON body.
    ///   - timeout: how long one attempt may take: 3 s, as the table client's attempts.
    /// - Throws: ``AWSServiceError`` with the service's error type and message, and how many
    ///   attempts were made.
    package func call(_ operation: String, _ body: JSONValue, timeout: Double = 3) async throws -> JSONValue {
        let bytes = body.jsonBytes
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: .seconds(max(retries.deadline, timeout)))
        let backoff = Backoff(base: .seconds(retries.baseDelay), cap: .seconds(retries.maximumDelay), jitter: jitter)
        /// Seconds left before the nearer of the call's end and the request's deadline.
        func left() -> Double {
            let now = clock.now
            return scope.bounded(max(.zero, now.duration(to: end)), at: now).seconds
        }
        var attempt = 0
        var last: AWSServiceError?
        while true {
            let budget = left()
            // Out of time: the last attempt's error, or, when none was made, that none could be.
            guard budget > 0 else {
                throw last
                    ?? AWSServiceError(
                        type: "RequestTimeout", message: "\(operation) was not sent: the request's deadline has passed",
                        attempts: 0)
            }
            attempt += 1
            var failure: AWSServiceError
            do throws(AWSServiceError) {
                return try await send(operation, bytes, timeout: min(timeout, budget))
            } catch {
                failure = error
            }
            failure.attempts = attempt
            last = failure
            let remaining = left()
            guard failure.isRetryable, attempt < retries.maximumAttempts, remaining > 0 else { throw failure }
            do {
                try await sleep(min(backoff.delay(after: attempt).seconds, remaining))
            } catch {
                // Cancelled while waiting: the last answer is the call's.
                throw failure
            }
        }
    }

    /// One attempt.
    private func send(_ operation: String, _ bytes: [UInt8], timeout: Double) async throws(AWSServiceError)
        -> JSONValue
    {
        let headers = [
            ("Content-Type", "application/x-amz-json-1.1"), ("X-Amz-Target", "\(targetPrefix).\(operation)"),
        ]
        let signed = signer.sign(method: "POST", url: endpoint, headers: headers, body: bytes, date: now())
        let request = DynamoDBHTTPRequest(
            operation: operation, url: endpoint, headers: headers + signed.headers, body: bytes, timeout: timeout)
        let response: DynamoDBHTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw AWSServiceError(
                type: "RequestFailed", message: "\(operation) to \(endpoint.absoluteString): \(error)", status: nil)
        }
        let json = (try? JSONParser.parse(response.body)) ?? .null
        guard response.status == 200 else {
            let type = (json["__type"]?.string ?? "HTTP \(response.status)").split(separator: "#").last.map(String.init)
            throw AWSServiceError(
                type: type ?? "HTTP \(response.status)",
                message: json["message"]?.string ?? json["Message"]?.string ?? "", status: response.status)
        }
        return json
    }

    /// An SSM parameter's value (`GetParameter`, decrypted when it is a SecureString).
    package func parameter(named name: String) async throws -> String {
        let answer = try await call("GetParameter", ["Name": .string(name), "WithDecryption": true])
        guard let value = answer["Parameter"]?["Value"]?.string else {
            throw AWSServiceError(type: "MalformedAnswer", message: "GetParameter answered no Parameter.Value")
        }
        return value
    }

    /// A secret's `SecretString` (`GetSecretValue`).
    package func secretString(id: String) async throws -> String {
        let answer = try await call("GetSecretValue", ["SecretId": .string(id)])
        guard let value = answer["SecretString"]?.string else {
            throw AWSServiceError(type: "MalformedAnswer", message: "the secret has no SecretString")
        }
        return value
    }
}

/// An AWS service's error answer: its type (`ParameterNotFound`) and message, or a call that got
/// no answer (`RequestFailed`), and how many attempts the call made; or, before any call, a setting
/// that is missing or malformed (``invalidConfiguration``).
package struct AWSServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error type, without its namespace: a stable code.
    package var type: String
    /// The service's message; for ``invalidConfiguration``, what is wrong, naming the variable.
    package var message: String
    /// For ``invalidConfiguration``: the variable that is wrong, when one is (`AWS_REGION`).
    package var variable: String?
    /// The HTTP status of the answer; `nil` when none came (`RequestFailed`) or none is known.
    package var status: Int?
    /// How many attempts the call made before it gave up: 1 unless the error may pass.
    package var attempts: Int

    /// Creates an error.
    package init(type: String, message: String, status: Int? = nil, attempts: Int = 1) {
        self.type = type
        self.message = message
        self.status = status
        self.attempts = attempts
    }

    /// The error types AWS's JSON services throttle with: botocore's standard retry mode's throttling codes.
    package static let throttlingTypes: Set<String> = [
        "ThrottlingException", "Throttling", "ThrottledException", "RequestThrottledException",
        "TooManyRequestsException", "ProvisionedThroughputExceededException", "TransactionInProgressException",
        "RequestLimitExceeded", "BandwidthLimitExceeded", "LimitExceededException", "RequestThrottled",
        "SlowDown", "PriorRequestNotComplete", "EC2ThrottledException",
    ]

    /// The error types of a passing failure whatever the status: botocore's transient codes, and no answer.
    package static let transientTypes: Set<String> = [
        "RequestFailed", "RequestTimeout", "RequestTimeoutException", "InternalServerError", "InternalFailure",
        "InternalErrorException", "InternalServiceError", "InternalServiceErrorException", "ServiceUnavailable",
        "ServiceUnavailableException",
    ]

    /// The type of a setting that is missing or malformed (an `AWS_*` variable, an SSM parameter
    /// name), found before any call: never retryable, described by its message alone.
    package static let invalidConfiguration = "InvalidConfiguration"

    /// A setting that is missing or malformed; with a `variable`, the message is "`<variable>` `<reason>`".
    package static func configuration(variable: String? = nil, _ reason: String) -> AWSServiceError {
        var error = AWSServiceError(type: invalidConfiguration, message: variable.map { "\($0) \(reason)" } ?? reason)
        error.variable = variable
        return error
    }

    /// What is wrong with ``variable``, without its name; the message when there is no variable.
    package var reason: String { variable.map { String(message.dropFirst($0.count + 1)) } ?? message }

    /// Whether the call was throttled.
    package var isThrottling: Bool { Self.throttlingTypes.contains(type) || status == 429 }

    /// Whether another attempt may succeed: throttling, a 5xx, or no answer at all (a refused or
    /// dropped connection, a timeout) — the AWS SDKs' retryable errors.
    package var isRetryable: Bool {
        isThrottling || Self.transientTypes.contains(type) || (status ?? 0) >= 500
    }

    package var description: String {
        if type == Self.invalidConfiguration { return message }
        let text = message.isEmpty ? type : "\(type): \(message)"
        return attempts > 1 ? "\(text) (after \(attempts) attempts)" : text
    }

    /// Equal when the type and message are: how the service answered, not how often it was asked.
    package static func == (lhs: AWSServiceError, rhs: AWSServiceError) -> Bool {
        lhs.type == rhs.type && lhs.message == rhs.message
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(message)
    }
}
