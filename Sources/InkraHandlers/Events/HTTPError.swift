/// A refusal that knows its HTTP status and renders its own proxy response.
public struct HTTPError: Error, Sendable, Hashable {
    /// The status code.
    public var statusCode: Int
    /// The JSON body; always has `"error"`.
    public var body: JSONObject
    /// Extra headers.
    public var headers: [String: String]

    /// An error with a message and optional extra body members.
    public init(
        _ statusCode: Int, _ message: String, details: [(String, JSONValue)] = [], headers: [String: String] = [:]
    ) {
        self.statusCode = statusCode
        var body = JSONObject()
        body["error"] = .string(message)
        for (key, value) in details { body[key] = value }
        self.body = body
        self.headers = headers
    }

    /// The error's message.
    public var message: String { body["error"]?.string ?? "" }

    /// The proxy response.
    public var response: ProxyResponse {
        .json(statusCode, .object(body), headers: headers.sorted { $0.key < $1.key })
    }

    /// 400 naming what is wrong.
    public static func badRequest(_ message: String) -> HTTPError { HTTPError(400, message) }
    /// 401.
    public static let unauthorized = HTTPError(401, "Unauthorized")
    /// 403.
    public static let forbidden = HTTPError(403, "Forbidden")
    /// 503: the usage store failed, so nothing was generated unmetered.
    public static let storeUnavailable = HTTPError(503, "Usage store unavailable")
    /// 500 that reveals nothing internal.
    public static let internalServer = HTTPError(500, "Internal server error")
}
