import InkraHandlers
import InkraJSON

/// A function's proxy response, with its JSON body parsed, for a test's expectations:
///
/// ```swift
/// let result = try await ProxyResult(generate.handle(event, context: clock.context))
/// #expect(result.statusCode == 429)
/// #expect(result.code == "rate_limited")
/// #expect(result.retryAfter == 2_400)
/// #expect(result.body["window"] == "hour")
/// ```
///
/// Every error body the functions answer is `{"error": message, "code": code, …}`; ``code`` is the
/// stable one a client acts on (`ErrorCode`), ``error`` the message for people.
public struct ProxyResult: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status code.
    public let statusCode: Int
    /// The headers, in order.
    public let headers: JSONObject
    /// The body, parsed.
    public let body: JSONValue
    /// The body as the function sent it.
    public let text: String

    /// Reads a function's result.
    /// - Throws: ``TestFailure`` when the result is not a proxy response (no `statusCode`) or its body
    ///   is not JSON.
    public init(_ json: JSONValue) throws(TestFailure) {
        guard let response = ProxyResponse(json: json) else {
            throw TestFailure("not a proxy response (no statusCode): \(json.jsonString)")
        }
        try self.init(response)
    }

    /// Reads a proxy response; an empty body (a 204's) reads as `null`.
    /// - Throws: ``TestFailure`` when its body is not JSON.
    public init(_ response: ProxyResponse) throws(TestFailure) {
        statusCode = response.statusCode
        headers = response.headers
        text = response.body
        do {
            body = response.body.isEmpty ? .null : try JSONParser.parse(response.body)
        } catch {
            throw TestFailure("the \(response.statusCode) response's body is not JSON (\(error)): \(response.body)")
        }
    }

    /// The error body's stable `code` (`rate_limited`, `quota_exceeded`, …); `nil` on success.
    public var code: String? { body["code"]?.string }

    /// The error body's message, `error`; `nil` on success.
    public var error: String? { body["error"]?.string }

    /// The `Retry-After` header, in seconds; `nil` when absent.
    public var retryAfter: Int? { header("Retry-After").flatMap { Int($0) } }

    /// A header's value, by name in any case.
    public func header(_ name: String) -> String? {
        headers.value(forCaseInsensitiveKey: name)?.scalarText
    }

    /// `429 {"error":…,"code":…}`: the status and the body.
    public var description: String { "\(statusCode) \(text)" }
}
