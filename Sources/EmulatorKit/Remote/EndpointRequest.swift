import Foundation
import HTTPText
import InkraJSON
import NIOHTTP1
import OutboundHTTP

/// The HTTP request an API Gateway proxy event describes, as a client sent it to a deployed stage:
/// method, path, query string, headers and body, for `replay endpoint`.
///
/// - REST API (payload 1.0): `httpMethod`, `path` (the resource path, without the stage),
///   `multiValueQueryStringParameters` (else `queryStringParameters`), `multiValueHeaders` (else
///   `headers`), `body` and `isBase64Encoded`.
/// - HTTP API (payload 2.0, `"version": "2.0"`): `requestContext.http.method`, `rawPath`,
///   `rawQueryString`, `headers` (values joined with commas), `cookies`, `body`.
///
/// The path goes after the endpoint's own path (`https://…/prod` + `/questions`); a path that
/// begins with the event's stage (`requestContext.stage`, unless `$default`) has it taken off
/// first, so an event recorded on `/prod/questions` is not sent to `/prod/prod/questions`.
///
/// Headers that the edge adds or the connection owns are not sent (`Host`, `Content-Length`,
/// `Connection`, `Transfer-Encoding`, `Accept-Encoding`, `Via`, `X-Forwarded-*`, `X-Amz-Cf-Id`,
/// `X-Amzn-Trace-Id`, `CloudFront-*`); nor is a recorded `Authorization`: the caller's token
/// (``authorization``) takes its place.
package struct EndpointRequest: Sendable {
    /// The request.
    package var request: OutboundRequest
    /// Whether the event carried an `Authorization` header (its token was not sent).
    package var hadAuthorization: Bool

    /// The request for `event` against `endpoint`, or why there is none (not a proxy event).
    /// - Parameters:
    ///   - event: the event, without the emulator's own fields.
    ///   - endpoint: the stage's URL (`https://ID.execute-api.REGION.amazonaws.com/prod`).
    ///   - token: the token sent in place of the one an event carried, under the same scheme
    ///     (`Bearer TOKEN`, or the bare token when the event had it bare); `nil` sends none.
    package static func make(_ event: JSONValue, endpoint: HTTPURL, token: String?) -> Result<Self, EmulatorError> {
        let isV2 = event["version"]?.string == "2.0"
        guard let method = (isV2 ? event["requestContext"]?["http"]?["method"] : event["httpMethod"])?.string,
            let path = (isV2 ? event["rawPath"] : event["path"])?.string
        else {
            return .failure(
                EmulatorError(
                    "not an API Gateway proxy event (no \(isV2 ? "requestContext.http.method or rawPath" : "httpMethod or path")): "
                        + "no HTTP request to send"))
        }
        var url = endpoint.absoluteString
        while url.hasSuffix("/") { url.removeLast() }
        url += Self.withoutStage(path, stage: event["requestContext"]?["stage"]?.string)
        let query = isV2 ? event["rawQueryString"]?.string ?? "" : Self.queryString(event)
        if !query.isEmpty { url += "?" + query }
        guard let target = HTTPURL(string: url) else {
            return .failure(EmulatorError("its path and query do not make a URL with the endpoint"))
        }
        var headers: [(String, String)] = []
        var hadAuthorization = false
        var bearer = true
        for (name, values) in Self.headers(event, isV2: isV2) {
            let lower = name.lowercased()
            if lower == "authorization" {
                hadAuthorization = true
                bearer = values.first?.lowercased().hasPrefix("bearer ") ?? true
                continue
            }
            guard !Self.dropped(lower) else { continue }
            for value in values { headers.append((name, value)) }
        }
        if isV2, let cookies = event["cookies"]?.array?.compactMap(\.string), !cookies.isEmpty {
            headers.append(("Cookie", cookies.joined(separator: "; ")))
        }
        if hadAuthorization, let token { headers.append(("Authorization", bearer ? "Bearer \(token)" : token)) }
        var body: [UInt8] = []
        if let text = event["body"]?.string {
            if event["isBase64Encoded"]?.bool == true {
                guard let data = Data(base64Encoded: text) else {
                    return .failure(EmulatorError("isBase64Encoded is true but its body is not base64"))
                }
                body = Array(data)
            } else {
                body = Array(text.utf8)
            }
        }
        return .success(
            EndpointRequest(
                request: OutboundRequest(
                    method: HTTPMethod(rawValue: method.uppercased()), url: target, headers: headers, body: body),
                hadAuthorization: hadAuthorization))
    }

    /// `path` without a leading `/STAGE` segment.
    static func withoutStage(_ path: String, stage: String?) -> String {
        let path = path.hasPrefix("/") ? path : "/" + path
        guard let stage, !stage.isEmpty, stage != "$default" else { return path }
        if path == "/" + stage { return "/" }
        if path.hasPrefix("/\(stage)/") { return String(path.dropFirst(stage.count + 1)) }
        return path
    }

    /// A REST event's query string, its parameters percent-encoded again.
    static func queryString(_ event: JSONValue) -> String {
        var pairs: [(String, String)] = []
        if let multi = event["multiValueQueryStringParameters"]?.object {
            for (name, values) in multi.pairs {
                for value in values.array ?? [] { if let value = value.string { pairs.append((name, value)) } }
            }
        } else if let single = event["queryStringParameters"]?.object {
            for (name, value) in single.pairs { if let value = value.string { pairs.append((name, value)) } }
        }
        return pairs.map { "\(encoded($0.0))=\(encoded($0.1))" }.joined(separator: "&")
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// The event's headers, each with its values.
    static func headers(_ event: JSONValue, isV2: Bool) -> [(String, [String])] {
        if !isV2, let multi = event["multiValueHeaders"]?.object, !multi.isEmpty {
            return multi.pairs.map { ($0.key, ($0.value.array ?? []).compactMap(\.string)) }
        }
        return (event["headers"]?.object?.pairs ?? []).compactMap { pair in
            pair.value.string.map { (pair.key, [$0]) }
        }
    }

    /// Whether a header (lower-case) is the edge's or the connection's, not the client's.
    static func dropped(_ name: String) -> Bool {
        [
            "host", "content-length", "connection", "transfer-encoding", "accept-encoding", "via", "x-amz-cf-id",
            "x-amzn-trace-id", "keep-alive", "upgrade",
        ].contains(name)
            || name.hasPrefix("x-forwarded-") || name.hasPrefix("cloudfront-")
    }
}
