import Foundation
import InkraHandlers
import InkraJSON
import InkraTime
import InkraUsage

/// API Gateway proxy events, shaped as API Gateway sends them to a function behind a Lambda
/// authorizer: a REST API's (payload 1.0) and an HTTP API's (payload 2.0).
///
/// ```swift
/// let ada = Caller("ada")
/// let post = ProxyEvent.rest(caller: ada, body: #"{"topic":"my first job"}"#)
/// let usage = ProxyEvent.http("GET", "/usage", caller: ada)
/// ```
///
/// With a `caller`, the event carries what API Gateway passes on once the authorizer has let them
/// in (REST: the context as strings beside `principalId`; HTTP API: the context under `lambda`).
/// Any other authorizer's section (a Cognito user pool authorizer's `claims`, an HTTP API JWT
/// authorizer's `jwt`) can be given as it is with `authorizer:`. Without either, the event is one
/// that reached the function with no identity at all.
public enum ProxyEvent {
    /// The instant events are stamped with when a test names none: 2026-03-10T10:00:00Z, where a
    /// ``ManualClock`` starts by default.
    public static let defaultTime = Timestamp(iso8601: "2026-03-10T10:00:00Z")

    /// A REST API proxy event.
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - path: the resource path (`/questions`, `/usage`).
    ///   - caller: the caller the authorizer let in; `nil` for none.
    ///   - body: the body's text; `nil` for no body (`"body": null`).
    ///   - headers: headers beside API Gateway's usual ones (which a name given here replaces, in
    ///     any case), in `headers` and `multiValueHeaders`.
    ///   - time: when API Gateway received the request (`requestTimeEpoch`, `requestTime`).
    ///   - base64: sends the body base64-encoded with `isBase64Encoded`, as API Gateway does for
    ///     binary media types.
    ///   - authorizer: `requestContext.authorizer` as it is, in place of the caller's.
    /// - Returns: the event, as the function's `handle(_:context:)` takes it.
    public static func rest(
        _ method: String = "POST",
        _ path: String = "/questions",
        caller: Caller? = nil,
        body: String? = nil,
        headers: [String: String] = [:],
        at time: Timestamp = defaultTime,
        base64: Bool = false,
        authorizer: JSONValue? = nil
    ) -> JSONValue {
        let fields = headerFields(defaults: restHeaders(), given: headers)
        var event = restRequest(method, path, headers: fields, at: time)
        event["body"] = body.map { .string(base64 ? Data($0.utf8).base64EncodedString() : $0) } ?? .null
        event["isBase64Encoded"] = .bool(base64)
        var value = JSONValue.object(event)
        value.set(authorizer ?? caller?.restAuthorizer(), at: ["requestContext", "authorizer"])
        return value
    }

    /// An HTTP API proxy event, payload 2.0.
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - path: the route's path (`/questions`, `/usage`).
    ///   - caller: the caller the authorizer let in; `nil` for none.
    ///   - body: the body's text; `nil` for no body (no `body` member).
    ///   - headers: headers beside API Gateway's usual ones (which a name given here replaces, in
    ///     any case); their names are lower-cased, as HTTP APIs send them.
    ///   - time: when API Gateway received the request (`timeEpoch`, `time`).
    ///   - base64: sends the body base64-encoded with `isBase64Encoded`.
    ///   - authorizer: `requestContext.authorizer` as it is, in place of the caller's.
    /// - Returns: the event, as the function's `handle(_:context:)` takes it.
    public static func http(
        _ method: String = "POST",
        _ path: String = "/questions",
        caller: Caller? = nil,
        body: String? = nil,
        headers: [String: String] = [:],
        at time: Timestamp = defaultTime,
        base64: Bool = false,
        authorizer: JSONValue? = nil
    ) -> JSONValue {
        let fields = headerFields(defaults: httpHeaders(body: body), given: headers)
        var event = httpRequest(method, path, headers: fields, at: time)
        if let body { event["body"] = .string(base64 ? Data(body.utf8).base64EncodedString() : body) }
        event["isBase64Encoded"] = .bool(base64)
        var value = JSONValue.object(event)
        value.set(authorizer ?? caller?.httpAuthorizer(), at: ["requestContext", "authorizer"])
        return value
    }

    // MARK: - The parts an authorizer's REQUEST event shares

    static let region = "us-east-1"
    static let accountID = "123456789012"
    static let apiID = "a1b2c3d4e5"
    static let restStage = "prod"
    static let httpStage = "$default"
    static let host = "\(apiID).execute-api.\(region).amazonaws.com"
    static let sourceIP = "203.0.113.42"
    static let userAgent = "InkraTesting"

    /// A REST request's members, without its body.
    static func restRequest(_ method: String, _ path: String, headers: [(String, String)], at time: Timestamp)
        -> JSONObject
    {
        var identity = JSONObject()
        for name in ["cognitoIdentityPoolId", "accountId", "cognitoIdentityId", "caller"] { identity[name] = .null }
        identity["sourceIp"] = .string(sourceIP)
        for name in [
            "principalOrgId", "accessKey", "cognitoAuthenticationType", "cognitoAuthenticationProvider", "userArn",
        ] {
            identity[name] = .null
        }
        identity["userAgent"] = .string(userAgent)
        identity["user"] = .null

        var context = JSONObject()
        context["resourceId"] = "x7k2p9"
        context["resourcePath"] = .string(path)
        context["httpMethod"] = .string(method)
        context["extendedRequestId"] = "Bq3Xr5fKoAMEb4w="
        context["requestTime"] = .string(CivilTime.apiGatewayTime(time))
        context["path"] = .string("/\(restStage)\(path)")
        context["accountId"] = .string(accountID)
        context["protocol"] = "HTTP/1.1"
        context["stage"] = .string(restStage)
        context["domainPrefix"] = .string(apiID)
        context["requestTimeEpoch"] = .number(milliseconds(time))
        context["requestId"] = .string(requestID(method, path, time))
        context["identity"] = .object(identity)
        context["domainName"] = .string(host)
        context["apiId"] = .string(apiID)

        var event = JSONObject()
        event["resource"] = .string(path)
        event["path"] = .string(path)
        event["httpMethod"] = .string(method)
        event["headers"] = .object(JSONObject(headers.map { ($0.0, JSONValue.string($0.1)) }))
        event["multiValueHeaders"] = .object(JSONObject(headers.map { ($0.0, JSONValue.array([.string($0.1)])) }))
        for name in ["queryStringParameters", "multiValueQueryStringParameters", "pathParameters", "stageVariables"] {
            event[name] = .null
        }
        event["requestContext"] = .object(context)
        return event
    }

    /// An HTTP API request's members, without its body.
    static func httpRequest(_ method: String, _ path: String, headers: [(String, String)], at time: Timestamp)
        -> JSONObject
    {
        var http = JSONObject()
        http["method"] = .string(method)
        http["path"] = .string(path)
        http["protocol"] = "HTTP/1.1"
        http["sourceIp"] = .string(sourceIP)
        http["userAgent"] = .string(userAgent)

        var context = JSONObject()
        context["accountId"] = .string(accountID)
        context["apiId"] = .string(apiID)
        context["domainName"] = .string(host)
        context["domainPrefix"] = .string(apiID)
        context["http"] = .object(http)
        context["requestId"] = .string(requestID(method, path, time))
        context["routeKey"] = .string("\(method) \(path)")
        context["stage"] = .string(httpStage)
        context["time"] = .string(CivilTime.apiGatewayTime(time))
        context["timeEpoch"] = .number(milliseconds(time))

        var event = JSONObject()
        event["version"] = "2.0"
        event["routeKey"] = .string("\(method) \(path)")
        event["rawPath"] = .string(path)
        event["rawQueryString"] = ""
        event["headers"] = .object(JSONObject(headers.map { ($0.0.lowercased(), JSONValue.string($0.1)) }))
        event["requestContext"] = .object(context)
        return event
    }

    /// The headers the app sends on every request, and those API Gateway adds (REST).
    static func restHeaders() -> [(String, String)] {
        [
            ("Accept", "application/json"), ("Content-Type", "application/json"), ("Host", host),
            ("User-Agent", userAgent), ("X-Forwarded-For", sourceIP), ("X-Forwarded-Port", "443"),
            ("X-Forwarded-Proto", "https"),
        ]
    }

    /// The headers the app sends on every request, and those API Gateway adds (HTTP API).
    static func httpHeaders(body: String?) -> [(String, String)] {
        [
            ("accept", "application/json"), ("content-length", String(body?.utf8.count ?? 0)),
            ("content-type", "application/json"), ("host", host), ("user-agent", userAgent),
            ("x-forwarded-for", sourceIP), ("x-forwarded-port", "443"), ("x-forwarded-proto", "https"),
        ]
    }

    /// The usual headers, less those a test names (in any case), then the test's, by name.
    static func headerFields(defaults: [(String, String)], given: [String: String]) -> [(String, String)] {
        let named = Set(given.keys.map { $0.lowercased() })
        return defaults.filter { !named.contains($0.0.lowercased()) } + given.sorted { $0.key < $1.key }
    }

    static func milliseconds(_ time: Timestamp) -> Int {
        Int((time.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// A request id that differs between requests of a test (by method, path and time) and is the
    /// same from run to run.
    static func requestID(_ method: String, _ path: String, _ time: Timestamp) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(method) \(path) \(milliseconds(time))".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        let digits = String(repeating: "0", count: 16 - hex.count) + hex
        let bytes = Array(digits + String(digits.reversed()))
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(bytes[$0]) }.joined(separator: "-")
    }
}
