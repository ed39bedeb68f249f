import InkraJSON

/// A Lambda proxy integration response, understood by REST and HTTP APIs alike.
public struct ProxyResponse: Sendable, Hashable {
    /// The HTTP status code.
    public var statusCode: Int
    /// Headers, in order; always includes `Content-Type`.
    public var headers: JSONObject
    /// The body text.
    public var body: String

    /// Creates a response.
    public init(statusCode: Int, headers: JSONObject = JSONObject(), body: String) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }

    /// A JSON response: `Content-Type: application/json` and the value as its body.
    public static func json(_ statusCode: Int, _ body: JSONValue, headers: [(String, String)] = []) -> ProxyResponse {
        var fields = JSONObject()
        fields["Content-Type"] = "application/json"
        for (name, value) in headers { fields[name] = .string(value) }
        return ProxyResponse(statusCode: statusCode, headers: fields, body: body.jsonString)
    }

    /// The response as the event Lambda returns to API Gateway.
    public var json: JSONValue {
        [
            "statusCode": .number(statusCode),
            "headers": .object(headers),
            "body": .string(body),
            "isBase64Encoded": false,
        ]
    }

    /// Reads a proxy response back from its JSON (as the emulator receives it from a function).
    package init?(json: JSONValue) {
        guard let statusCode = json["statusCode"]?.int else { return nil }
        self.statusCode = statusCode
        headers = json["headers"]?.object ?? JSONObject()
        body = json["body"]?.string ?? ""
    }
}
