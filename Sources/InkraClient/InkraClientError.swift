import Foundation

/// What went wrong with a call, from the stable `code` of the server's error body
/// (docs/errors.md), after the client's own retries.
///
/// The client acts on codes, never on the English message. A code this version does not know
/// becomes ``unexpected(status:code:)``, so a server that adds one never breaks the app.
public enum InkraClientError: Error, Sendable, Equatable {
    /// 429 `quota_exceeded`: the month's quota is used up. Show the upgrade screen, or wait for
    /// `resetDate`.
    /// - limit: the month's limit; used: units used; resetDate: the first instant (UTC) of the
    ///   next month; retryAfter: seconds until then; upgradeURL: where to upgrade, when the
    ///   server names a valid URL.
    case quotaExceeded(limit: Int, used: Int, resetDate: Date, retryAfter: Int, upgradeURL: URL?)
    /// 429 `rate_limited`: the day's or the hour's limit is reached; wait `retryAfter` seconds.
    case rateLimited(window: LimitWindow, limit: Int, retryAfter: Int)
    /// 401 `unauthorized` (or an HTTP API's 401 without a code), still so with a fresh token: sign
    /// the user in again.
    case signedOut
    /// 403 `access_denied`: the account is blocked. Tell the user; do not retry. An HTTP API's
    /// 403 without a code (its authorizer's refusal) ends here too once a fresh token is refused.
    case accessDenied
    /// 400 `invalid_request`: the request is malformed; `message` names the field. A bug in the
    /// app, not something to retry.
    case invalidRequest(message: String)
    /// 422 `idempotency_key_reused`: the key went with another body. A bug in the client.
    case idempotencyKeyReused
    /// 409 `idempotency_conflict`, still so after the client waited as long as its
    /// ``RetryPolicy`` allows: an earlier attempt of the call is still running. Nothing more was
    /// charged; the app may try again later.
    case inProgress(retryAfter: Int)
    /// 503 `unavailable` after the client's retries, or with a `Retry-After` longer than its
    /// ``RetryPolicy`` waits: no questions were given; `retryAfter` is the server's advice.
    case unavailable(retryAfter: Int?)
    /// 429 `throttled`: API Gateway's stage limit, after the client's retries.
    case throttled(retryAfter: Int?)
    /// 502 `generation_failed`: the question generator failed and the unit was given back.
    case generationFailed
    /// A failure on the server's side that the user cannot fix and the client did not retry
    /// (500 `internal_error`, `authorizer_failure`, `authorizer_unavailable`, 5XX
    /// `gateway_error`, 504 `timeout`): the user stays signed in; try again later.
    case serverFailure(status: Int, code: String)
    /// 4XX `request_rejected`: API Gateway refused the request (an unknown path, a body too large).
    case requestRejected(status: Int)
    /// The request got no answer (a timeout, a lost connection, no network) on any attempt;
    /// `code` is the last attempt's `URLError` code.
    case network(code: Int)
    /// An answer this version does not understand: a status or `code` it does not know, or a
    /// body it cannot read. `code` is the body's `code` when it has one.
    case unexpected(status: Int, code: String?)
}
