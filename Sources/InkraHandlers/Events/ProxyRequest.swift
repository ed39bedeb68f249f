import HTTPText
import InkraJSON
import InkraTime

/// An API Gateway proxy event — REST API (payload 1.0) or HTTP API (payload 2.0) — read leniently:
/// only what the functions need, from whichever shape the event has.
public struct ProxyRequest: Sendable {
    /// The event's payload format.
    public enum Version: String, Sendable, Hashable {
        /// REST API proxy integration, or HTTP API payload 1.0.
        case v1 = "1.0"
        /// HTTP API payload 2.0.
        case v2 = "2.0"
    }

    /// The event as received.
    public let event: JSONObject
    /// The payload format.
    public let version: Version

    /// Reads an event.
    /// - Throws: ``FunctionError`` when the event is not a JSON object.
    public init(event: JSONValue) throws(FunctionError) {
        guard let object = event.object else {
            throw FunctionError.invalidEvent("an API Gateway proxy event must be a JSON object, not \(event.typeName)")
        }
        self.event = object
        version = object["version"]?.string == "2.0" ? .v2 : .v1
    }

    /// `requestContext`.
    public var requestContext: JSONObject? { event["requestContext"]?.object }

    /// The HTTP method.
    public var httpMethod: String? {
        event["httpMethod"]?.string ?? requestContext?["http"]?["method"]?.string
    }

    /// The request path.
    public var path: String? {
        event["path"]?.string ?? event["rawPath"]?.string ?? requestContext?["http"]?["path"]?.string
    }

    /// A header's value, by case-insensitive name; repeated headers are joined with commas.
    public func header(_ name: String) -> String? {
        if let value = event["headers"]?.object?.value(forCaseInsensitiveKey: name)?.scalarText {
            return value
        }
        if let values = event["multiValueHeaders"]?.object?.value(forCaseInsensitiveKey: name)?.array {
            let texts = values.compactMap(\.scalarText)
            return texts.isEmpty ? nil : texts.joined(separator: ",")
        }
        return nil
    }

    /// `requestContext.authorizer`, where API Gateway puts what an authorizer said of the caller.
    public var authorizer: JSONObject? { requestContext?["authorizer"]?.object }

    /// When API Gateway received the request: `requestTimeEpoch` (REST) or `timeEpoch` (HTTP API),
    /// both in milliseconds.
    package var requestTime: Timestamp? {
        guard let context = requestContext,
            let milliseconds = (context["requestTimeEpoch"] ?? context["timeEpoch"])?.double
        else { return nil }
        return Timestamp(timeIntervalSince1970: milliseconds / 1000)
    }

    /// API Gateway's request id.
    public var requestID: String? { requestContext?["requestId"]?.string }

    /// The body as sent, decoded from base64 when `isBase64Encoded`; `nil` when there is none.
    /// - Throws: ``HTTPError`` (400) when a base64 body does not decode.
    package func bodyBytes() throws(HTTPError) -> [UInt8]? {
        guard let body = event["body"], body != .null else { return nil }
        guard let text = body.string else {
            throw HTTPError.badRequest("body must be a string in the event, not \(body.typeName)")
        }
        guard event["isBase64Encoded"]?.bool == true else { return Array(text.utf8) }
        guard let data = Base64.decode(text, ignoringUnknownCharacters: true) else {
            throw HTTPError.badRequest("body is marked isBase64Encoded but is not valid base64")
        }
        return Array(data)
    }
}
