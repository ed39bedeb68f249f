import Foundation
import HTTPText
import InkraHandlers
import InkraJSON
import InkraTime

/// Builds the proxy event API Gateway sends a function from a real HTTP request: REST API
/// (payload 1.0) or HTTP API (payload 2.0).
struct ProxyEventBuilder: Sendable {
    /// The payload version.
    var version: ProxyRequest.Version
    /// The stage name as the event carries it.
    var stage: String
    /// The API's id.
    var apiID = "inkra0local"
    /// The account id.
    var accountID = "123456789012"

    /// The event for a request matched to a route.
    /// - Parameters:
    ///   - request: the HTTP request.
    ///   - resource: the route's resource path, such as `/questions`.
    ///   - path: the request path without the stage prefix.
    ///   - requestID: API Gateway's request id.
    ///   - time: when the request arrived.
    func event(
        for request: LocalHTTPRequest, resource: String, path: String, requestID: String, at time: Timestamp
    ) -> JSONValue {
        let epoch = Int(time.timeIntervalSince1970 * 1000)
        let host = request.header("Host") ?? "localhost"
        let (body, isBase64) = Self.body(of: request)
        switch version {
        case .v1:
            return restEvent(
                request, resource: resource, path: path, requestID: requestID, time: time, epoch: epoch, host: host,
                body: body, isBase64: isBase64)
        case .v2:
            return httpEvent(
                request, resource: resource, requestID: requestID, time: time, epoch: epoch, host: host, body: body,
                isBase64: isBase64)
        }
    }

    private func restEvent(
        _ request: LocalHTTPRequest, resource: String, path: String, requestID: String, time: Timestamp, epoch: Int,
        host: String, body: String?, isBase64: Bool
    ) -> JSONValue {
        let (headers, multiHeaders) = Self.restHeaders(request.headers)
        let query = Self.queryParameters(request.query)
        var single = JSONObject()
        var multi = JSONObject()
        for (name, value) in query {
            single[name] = .string(value)
            multi[name] = .array((multi[name]?.array ?? []) + [.string(value)])
        }
        var identity = Self.identityTemplate
        identity["sourceIp"] = .string(request.sourceIP)
        if let agent = request.header("User-Agent") { identity["userAgent"] = .string(agent) }
        let context = JSONObject(uniqueKeysWithValues: [
            ("resourceId", "local0"),
            ("resourcePath", .string(resource)),
            ("httpMethod", .string(request.method)),
            ("extendedRequestId", .string(RequestID.extended(requestID))),
            ("requestTime", .string(CivilTime.apiGatewayTime(time))),
            ("path", .string(stage.isEmpty ? path : "/\(stage)\(path)")),
            ("accountId", .string(accountID)),
            ("protocol", .string(request.httpVersion)),
            ("stage", .string(stage)),
            ("domainPrefix", .string(Self.domainPrefix(host))),
            ("requestTimeEpoch", .number(epoch)),
            ("requestId", .string(requestID)),
            ("identity", .object(identity)),
            ("domainName", .string(host)),
            ("apiId", .string(apiID)),
        ])
        return .object(
            JSONObject(uniqueKeysWithValues: [
                ("resource", .string(resource)),
                ("path", .string(path)),
                ("httpMethod", .string(request.method)),
                ("headers", headers.isEmpty ? nil : .object(headers)),
                ("multiValueHeaders", multiHeaders.isEmpty ? nil : .object(multiHeaders)),
                ("queryStringParameters", single.isEmpty ? nil : .object(single)),
                ("multiValueQueryStringParameters", multi.isEmpty ? nil : .object(multi)),
                ("pathParameters", nil),
                ("stageVariables", nil),
                ("requestContext", .object(context)),
                ("body", body.map(JSONValue.string) ?? nil),
                ("isBase64Encoded", .bool(isBase64)),
            ]))
    }

    /// A REST event's `requestContext.identity` for a caller API Gateway knows only by address
    /// and user agent (set per request); the same for every request, so made once.
    private static let identityTemplate = JSONObject(uniqueKeysWithValues: [
        ("sourceIp", nil), ("userAgent", nil), ("accountId", nil), ("caller", nil), ("user", nil), ("userArn", nil),
        ("cognitoIdentityId", nil), ("cognitoIdentityPoolId", nil), ("cognitoAuthenticationType", nil),
        ("cognitoAuthenticationProvider", nil),
    ])

    private func httpEvent(
        _ request: LocalHTTPRequest, resource: String, requestID: String, time: Timestamp, epoch: Int, host: String,
        body: String?, isBase64: Bool
    ) -> JSONValue {
        var headers = JSONObject()
        var cookies: [JSONValue] = []
        for (name, value) in request.headers {
            let key = name.lowercased()
            if key == "cookie" {
                cookies += value.split(separator: ";").map { .string(String($0.trimmingSpacesAndTabs())) }
                continue
            }
            headers[key] = .string(headers[key]?.string.map { "\($0),\(value)" } ?? value)
        }
        var query = JSONObject()
        for (name, value) in Self.queryParameters(request.query) {
            query[name] = .string(query[name]?.string.map { "\($0),\(value)" } ?? value)
        }
        let routeKey = "\(request.method) \(resource)"
        var event: JSONValue = [
            "version": "2.0",
            "routeKey": .string(routeKey),
            "rawPath": .string(request.path),
            "rawQueryString": .string(request.query),
        ]
        if !cookies.isEmpty { event.set(.array(cookies), at: ["cookies"]) }
        event.set(.object(headers), at: ["headers"])
        if !query.isEmpty { event.set(.object(query), at: ["queryStringParameters"]) }
        event.set(
            [
                "accountId": .string(accountID),
                "apiId": .string(apiID),
                "domainName": .string(host),
                "domainPrefix": .string(Self.domainPrefix(host)),
                "http": [
                    "method": .string(request.method),
                    "path": .string(request.path),
                    "protocol": .string(request.httpVersion),
                    "sourceIp": .string(request.sourceIP),
                    "userAgent": .string(request.header("User-Agent") ?? ""),
                ],
                "requestId": .string(requestID),
                "routeKey": .string(routeKey),
                "stage": .string(stage),
                "time": .string(CivilTime.apiGatewayTime(time)),
                "timeEpoch": .number(epoch),
            ],
            at: ["requestContext"]
        )
        if let body { event.set(.string(body), at: ["body"]) }
        event.set(.bool(isBase64), at: ["isBase64Encoded"])
        return event
    }

    /// A REST event's `headers` (each name's last value) and `multiValueHeaders` (all of its
    /// values, in order), a name under the first spelling the request used.
    static func restHeaders(_ fields: [(name: String, value: String)]) -> (JSONObject, JSONObject) {
        var names: [String] = []
        var values: [[JSONValue]] = []
        names.reserveCapacity(fields.count)
        values.reserveCapacity(fields.count)
        for (name, value) in fields {
            if let position = names.firstIndex(where: { $0.caseInsensitiveEquals(name) }) {
                values[position].append(.string(value))
            } else {
                names.append(name)
                values.append([.string(value)])
            }
        }
        var single: [(key: String, value: JSONValue)] = []
        var multi: [(key: String, value: JSONValue)] = []
        single.reserveCapacity(names.count)
        multi.reserveCapacity(names.count)
        for (name, all) in zip(names, values) {
            single.append((name, all[all.count - 1]))
            multi.append((name, .array(all)))
        }
        return (JSONObject(uniqueKeysWithValues: single), JSONObject(uniqueKeysWithValues: multi))
    }

    /// The body as the event carries it: text when it is a text type and valid UTF-8, else base64.
    static func body(of request: LocalHTTPRequest) -> (String?, Bool) {
        guard !request.body.isEmpty else { return (nil, false) }
        if isText(request.header("Content-Type")) {
            // Decoding repairs invalid UTF-8, so the text has the body's bytes exactly when it is valid.
            let text = String(decoding: request.body, as: UTF8.self)
            if text.utf8.elementsEqual(request.body) { return (text, false) }
        }
        return (Data(request.body).base64EncodedString(), true)
    }

    /// Whether a content type is text API Gateway passes through as it is.
    static func isText(_ contentType: String?) -> Bool {
        guard let contentType else { return true }
        if contentType == "application/json" { return true }
        let type = contentType.split(separator: ";").first.map { $0.trimmingSpacesAndTabs().lowercased() } ?? ""
        return type.hasPrefix("text/") || type == "application/json" || type.hasSuffix("+json")
            || type == "application/xml" || type.hasSuffix("+xml") || type == "application/javascript"
            || type == "application/x-www-form-urlencoded" || type.isEmpty
    }

    /// Query parameters in order, percent-decoded.
    static func queryParameters(_ query: String) -> [(String, String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let value = parts.count > 1 ? String(parts[1]) : ""
            return (name.removingPercentEncoding ?? name, value.removingPercentEncoding ?? value)
        }
    }

    /// The first label of the host, without a port: the first non-empty piece between `:`, then
    /// between `.`; the host itself when there is none.
    static func domainPrefix(_ host: String) -> String {
        let name = host.split(separator: ":").first ?? host[...]
        return String(name.split(separator: ".").first ?? name)
    }
}
