import Foundation
import InkraHandlers
import InkraJSON
import InkraTime

/// The events API Gateway sends a Lambda authorizer: a REST API's `TOKEN` and `REQUEST` events and
/// an HTTP API's payload 2.0 `REQUEST` event.
///
/// Each takes the `Authorization` header as the app sends it, `Bearer ` and all:
///
/// ```swift
/// let token = try pool.token(for: Caller("ada"), at: clock.now)
/// let answer = try await authorizer.handle(AuthorizerEvent.token("Bearer \(token)"), context: clock.context)
/// ```
public enum AuthorizerEvent {
    /// A REST API `TOKEN` authorizer's event: `authorizationToken` and `methodArn`.
    /// - Parameters:
    ///   - authorization: the `Authorization` header; `nil` for a request without one (API
    ///     Gateway's own 401 in a deployed stack; an empty `authorizationToken` here).
    ///   - method: the request's method, in `methodArn`.
    ///   - path: the request's resource path, in `methodArn`.
    public static func token(_ authorization: String?, method: String = "POST", path: String = "/questions")
        -> JSONValue
    {
        [
            "type": "TOKEN",
            "authorizationToken": .string(authorization ?? ""),
            "methodArn": .string(methodArn(method, path)),
        ]
    }

    /// A REST API `REQUEST` authorizer's event: the request's headers, paths and context (no body),
    /// with `methodArn`.
    /// - Parameters:
    ///   - authorization: the `Authorization` header; `nil` for none.
    ///   - method: the request's method.
    ///   - path: the request's resource path.
    ///   - headers: other headers, as ``ProxyEvent/rest(_:_:caller:body:headers:at:base64:authorizer:)``
    ///     takes them.
    ///   - time: when API Gateway received the request.
    public static func request(
        _ authorization: String?,
        method: String = "POST",
        path: String = "/questions",
        headers: [String: String] = [:],
        at time: Timestamp = ProxyEvent.defaultTime
    ) -> JSONValue {
        var given = headers
        if let authorization { given["Authorization"] = authorization }
        let fields = ProxyEvent.headerFields(defaults: ProxyEvent.restHeaders(), given: given)
        var event = JSONObject()
        event["type"] = "REQUEST"
        event["methodArn"] = .string(methodArn(method, path))
        for (key, value) in ProxyEvent.restRequest(method, path, headers: fields, at: time).pairs {
            event[key] = value
        }
        return .object(event)
    }

    /// An HTTP API Lambda authorizer's event, payload 2.0: `identitySource` (the `Authorization`
    /// header), `routeArn`, and the request's headers and context.
    /// - Parameters:
    ///   - authorization: the `Authorization` header; `nil` for none (an empty `identitySource`).
    ///   - method: the request's method.
    ///   - path: the route's path.
    ///   - headers: other headers, as ``ProxyEvent/http(_:_:caller:body:headers:at:base64:authorizer:)``
    ///     takes them.
    ///   - time: when API Gateway received the request.
    public static func http(
        _ authorization: String?,
        method: String = "POST",
        path: String = "/questions",
        headers: [String: String] = [:],
        at time: Timestamp = ProxyEvent.defaultTime
    ) -> JSONValue {
        var given = headers
        if let authorization { given["authorization"] = authorization }
        let fields = ProxyEvent.headerFields(defaults: ProxyEvent.httpHeaders(body: nil), given: given)
        let request = ProxyEvent.httpRequest(method, path, headers: fields, at: time)
        var event = JSONObject()
        event["version"] = "2.0"
        event["type"] = "REQUEST"
        event["routeArn"] = .string(routeArn(method, path))
        event["identitySource"] = .array(authorization.map { [.string($0)] } ?? [])
        for (key, value) in request.pairs where key != "version" { event[key] = value }
        return .object(event)
    }

    /// A REST API method's ARN: `arn:aws:execute-api:us-east-1:123456789012:a1b2c3d4e5/prod/POST/questions`.
    package static func methodArn(_ method: String, _ path: String) -> String {
        "arn:aws:execute-api:\(ProxyEvent.region):\(ProxyEvent.accountID):\(ProxyEvent.apiID)/"
            + "\(ProxyEvent.restStage)/\(method)\(path)"
    }

    /// An HTTP API route's ARN: `arn:aws:execute-api:us-east-1:123456789012:a1b2c3d4e5/$default/POST/questions`.
    package static func routeArn(_ method: String, _ path: String) -> String {
        "arn:aws:execute-api:\(ProxyEvent.region):\(ProxyEvent.accountID):\(ProxyEvent.apiID)/"
            + "\(ProxyEvent.httpStage)/\(method)\(path)"
    }
}
