/// The stable, machine-readable `code` of every error body a client can get, with its status.
///
/// A client acts on the code (retry later, ask the user to sign in, show the upgrade screen),
/// never on the English `error` text beside it. The public codes are the ones a function answers
/// (`ErrorCode.functions`), which a function of yours may answer too; API Gateway answers its own
/// (`access_denied`, `throttled`, `timeout`…, `ErrorCode.gateway`, the package's) through
/// template.yaml's gateway responses, in the same JSON shape. docs/errors.md lists them all, and a
/// test holds the list, the functions and the template to one another.
public struct ErrorCode: Sendable, Hashable, CustomStringConvertible {
    /// The code as it appears in the body (`quota_exceeded`).
    public let rawValue: String
    /// The HTTP status that carries it.
    public let status: Int

    private init(_ rawValue: String, _ status: Int) {
        self.rawValue = rawValue
        self.status = status
    }

    public var description: String { rawValue }

    // MARK: The functions' codes

    /// 400: the request's body, header or query is malformed; the message names the field.
    public static let invalidRequest = ErrorCode("invalid_request", 400)
    /// 401: the token is missing, malformed, expired or not the pool's (API Gateway's
    /// `UNAUTHORIZED`), or no caller identity reached the function: sign in again.
    public static let unauthorized = ErrorCode("unauthorized", 401)
    /// 409: a request with the same `Idempotency-Key` is still in progress.
    public static let idempotencyConflict = ErrorCode("idempotency_conflict", 409)
    /// 422: the `Idempotency-Key` was used before with a different body.
    public static let idempotencyKeyReused = ErrorCode("idempotency_key_reused", 422)
    /// 429: the month's quota is used up; `resetDate`, `retryAfter` and `upgradeUrl` say what next.
    public static let quotaExceeded = ErrorCode("quota_exceeded", 429)
    /// 429: the day's or the hour's limit is reached; `window` and `retryAfter` say which and when.
    public static let rateLimited = ErrorCode("rate_limited", 429)
    /// 500: an unexpected failure; nothing was charged.
    public static let internalError = ErrorCode("internal_error", 500)
    /// 502: the question generator failed; the unit was given back.
    public static let generationFailed = ErrorCode("generation_failed", 502)
    /// 503: the usage store could not be reached in time, or the request ran out of time; no
    /// questions were given, a retry with the same `Idempotency-Key` is never charged twice, and
    /// `Retry-After` says when to try again.
    public static let unavailable = ErrorCode("unavailable", 503)

    // MARK: API Gateway's codes (template.yaml's gateway responses)

    /// 403, `ACCESS_DENIED`: the authorizer denied the caller (a blocked account).
    package static let accessDenied = ErrorCode("access_denied", 403)
    /// 500, `AUTHORIZER_FAILURE`: the authorizer failed; retry later, the user stays signed in.
    package static let authorizerFailure = ErrorCode("authorizer_failure", 500)
    /// 500, `AUTHORIZER_CONFIGURATION_ERROR`: the authorizer could not check the token (the
    /// pool's keys were unreachable); retry later, the user stays signed in.
    package static let authorizerUnavailable = ErrorCode("authorizer_unavailable", 500)
    /// 429, `THROTTLED`: the stage's throttling limit; retry with backoff.
    package static let throttled = ErrorCode("throttled", 429)
    /// 504, `INTEGRATION_TIMEOUT`: the function did not answer in time; retry later.
    package static let timeout = ErrorCode("timeout", 504)
    /// 400, `BAD_REQUEST_BODY`: a body the request model refused; 4XX, `DEFAULT_4XX`: any other
    /// refusal by API Gateway (an unknown path, a body too large).
    package static let requestRejected = ErrorCode("request_rejected", 400)
    /// 5XX, `DEFAULT_5XX`: any other failure in API Gateway.
    package static let gatewayError = ErrorCode("gateway_error", 500)

    /// Every code the functions answer.
    package static let functions: [ErrorCode] = [
        .invalidRequest, .unauthorized, .idempotencyConflict, .idempotencyKeyReused, .quotaExceeded, .rateLimited,
        .internalError, .generationFailed, .unavailable,
    ]

    /// API Gateway's response types and the code each answers with (template.yaml's
    /// `GatewayResponses`).
    package static let gateway: [(responseType: String, code: ErrorCode)] = [
        ("UNAUTHORIZED", .unauthorized),
        ("ACCESS_DENIED", .accessDenied),
        ("AUTHORIZER_FAILURE", .authorizerFailure),
        ("AUTHORIZER_CONFIGURATION_ERROR", .authorizerUnavailable),
        ("THROTTLED", .throttled),
        ("INTEGRATION_TIMEOUT", .timeout),
        ("BAD_REQUEST_BODY", .requestRejected),
        ("DEFAULT_4XX", .requestRejected),
        ("DEFAULT_5XX", .gatewayError),
    ]
}
