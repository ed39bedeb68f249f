import InkraJSON

/// A refusal that knows its HTTP status and renders its own proxy response.
///
/// Its body is `{"error": <message>, "code": <code>, …details}`: the message for people, the
/// ``ErrorCode`` for clients.
public struct HTTPError: Error, Sendable, Hashable {
    /// The status code.
    public var statusCode: Int
    /// The JSON body; always has `"error"` and `"code"`.
    public var body: JSONObject
    /// Extra headers.
    public var headers: [String: String]

    /// An error with its code, a message and optional extra body members.
    public init(
        _ code: ErrorCode, _ message: String, details: [(String, JSONValue)] = [], headers: [String: String] = [:]
    ) {
        statusCode = code.status
        var body = JSONObject()
        body["error"] = .string(message)
        body["code"] = .string(code.rawValue)
        for (key, value) in details { body[key] = value }
        self.body = body
        self.headers = headers
    }

    /// The error's message.
    package var message: String { body["error"]?.string ?? "" }

    /// The error's code.
    package var code: String { body["code"]?.string ?? "" }

    /// The proxy response.
    public var response: ProxyResponse {
        .json(statusCode, .object(body), headers: headers.sorted { $0.key < $1.key })
    }

    /// 400 naming what is wrong.
    package static func badRequest(_ message: String) -> HTTPError { HTTPError(.invalidRequest, message) }
    /// 401.
    package static let unauthorized = HTTPError(.unauthorized, "Unauthorized")
    /// 503: the usage store failed, so nothing was generated unmetered, and no unit stays charged
    /// that the store could give back.
    package static let storeUnavailable = unavailable("Usage store unavailable")
    /// 503 when the user directory (Cognito) could not delete an account.
    package static let directoryUnavailable = unavailable("User directory unavailable")
    /// 500 that reveals nothing internal.
    package static let internalServer = HTTPError(.internalError, "Internal server error")

    /// How long a client waits before retrying a 503, in seconds.
    package static let unavailableRetryAfter = 2

    /// 503 with `Retry-After`: try again shortly (what was charged is said by the message and
    /// docs/functions.md: a call with an `Idempotency-Key` is never charged twice).
    public static func unavailable(_ message: String) -> HTTPError {
        HTTPError(
            .unavailable, message, details: [("retryAfter", .number(unavailableRetryAfter))],
            headers: ["Retry-After": String(unavailableRetryAfter)])
    }
}
