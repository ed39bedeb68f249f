import Foundation
import InkraHandlers
import InkraJSON
import InkraTime

/// Sample events of every kind the functions accept, shaped as API Gateway sends them.
package enum SampleEvents {
    /// The kinds of sample event.
    package enum Kind: String, Sendable, CaseIterable {
        /// REST API (v1) proxy event for `POST /questions`.
        case restGenerate = "rest-generate"
        /// REST API (v1) proxy event for `GET /usage`.
        case restUsage = "rest-usage"
        /// HTTP API (v2) proxy event for `POST /questions`.
        case httpGenerate = "http-generate"
        /// HTTP API (v2) proxy event for `GET /usage`.
        case httpUsage = "http-usage"
        /// REST API `TOKEN` authorizer event.
        case tokenAuthorizer = "token-authorizer"
        /// REST API `REQUEST` authorizer event.
        case requestAuthorizer = "request-authorizer"
        /// HTTP API payload 2.0 authorizer event.
        case httpAuthorizer = "http-authorizer"

        /// The function that takes this kind of event.
        package var function: FunctionName {
            switch self {
            case .restGenerate, .httpGenerate: .generateQuestions
            case .restUsage, .httpUsage: .checkUsage
            case .tokenAuthorizer, .requestAuthorizer, .httpAuthorizer: .authorizer
            }
        }
    }

    static let account = "123456789012"
    static let apiID = "inkra0local"
    static let region = "us-east-1"

    /// A sample event.
    /// - Parameters:
    ///   - kind: which event.
    ///   - token: the bearer token to carry (without `Bearer `).
    ///   - body: the request body, for `generateQuestions`.
    ///   - time: when the request is made.
    ///   - requestID: API Gateway's request id.
    package static func event(
        _ kind: Kind,
        token: String?,
        body: String = #"{"topic":"my grandmother's childhood in Naples","length":"short"}"#,
        at time: Timestamp,
        requestID: String = UUID().uuidString.lowercased()
    ) -> JSONValue {
        let epochMilliseconds = Int(time.timeIntervalSince1970 * 1000)
        let bearer = token.map { "Bearer \($0)" }
        switch kind {
        case .restGenerate, .restUsage, .httpGenerate, .httpUsage:
            let proxy = kind == .restGenerate || kind == .restUsage ? rest : http
            let generate = kind.function == .generateQuestions
            return proxy(
                generate ? "POST" : "GET", generate ? "/questions" : "/usage", generate ? body : nil, bearer, time,
                epochMilliseconds, requestID)
        case .tokenAuthorizer:
            return [
                "type": "TOKEN",
                "authorizationToken": bearer.map(JSONValue.string) ?? "",
                "methodArn": .string("arn:aws:execute-api:\(region):\(account):\(apiID)/prod/POST/questions"),
                "x-inkra-recorded-at": .string(CivilTime.iso8601(time)),
            ]
        case .requestAuthorizer:
            var headers: JSONValue = [
                "Accept": "application/json", "Host": .string(host), "User-Agent": "Inkra/1.0 (iOS)",
            ]
            if let bearer { headers.set(.string(bearer), at: ["Authorization"]) }
            return [
                "type": "REQUEST",
                "methodArn": .string("arn:aws:execute-api:\(region):\(account):\(apiID)/prod/GET/usage"),
                "resource": "/usage", "path": "/usage", "httpMethod": "GET",
                "headers": headers,
                "queryStringParameters": [:], "pathParameters": [:], "stageVariables": [:],
                "requestContext": [
                    "path": "/prod/usage", "accountId": .string(account), "resourceId": "u5g9kd", "stage": "prod",
                    "requestId": .string(requestID), "requestTimeEpoch": .number(epochMilliseconds),
                    "identity": ["sourceIp": "203.0.113.7", "userAgent": "Inkra/1.0 (iOS)"],
                    "resourcePath": "/usage", "httpMethod": "GET", "apiId": .string(apiID),
                ],
            ]
        case .httpAuthorizer:
            var headers: JSONValue = [
                "accept": "application/json", "host": .string(host), "user-agent": "Inkra/1.0 (iOS)",
            ]
            if let bearer { headers.set(.string(bearer), at: ["authorization"]) }
            return [
                "version": "2.0", "type": "REQUEST",
                "routeArn": .string("arn:aws:execute-api:\(region):\(account):\(apiID)/$default/POST/questions"),
                "identitySource": bearer.map { [.string($0)] } ?? [],
                "routeKey": "POST /questions", "rawPath": "/questions", "rawQueryString": "",
                "headers": headers,
                // The request's own context, as API Gateway passes it to the authorizer.
                "requestContext": http(
                    method: "POST", path: "/questions", body: nil, bearer: nil, time: time, epoch: epochMilliseconds,
                    requestID: requestID)["requestContext"] ?? [:],
            ]
        }
    }

    static var host: String { "\(apiID).execute-api.\(region).amazonaws.com" }

    /// A proxy request's headers, `Authorization` last when there is a token; HTTP API's in lower case.
    private static func proxyHeaders(bearer: String?, lowercased: Bool) -> JSONValue {
        let pairs: [(String, String)] =
            [
                ("Accept", "application/json"), ("Content-Type", "application/json"), ("Host", host),
                ("User-Agent", "Inkra/1.0 (iOS)"), ("X-Forwarded-For", "203.0.113.7"), ("X-Forwarded-Port", "443"),
                ("X-Forwarded-Proto", "https"),
            ] + (bearer.map { [("Authorization", $0)] } ?? [])
        return .object(JSONObject(pairs.map { (lowercased ? $0.0.lowercased() : $0.0, JSONValue.string($0.1)) }))
    }

    private static func rest(
        method: String, path: String, body: String?, bearer: String?, time: Timestamp, epoch: Int, requestID: String
    ) -> JSONValue {
        let headers = proxyHeaders(bearer: bearer, lowercased: false)
        var multi = JSONObject()
        for (name, value) in headers.object?.pairs ?? [] { multi[name] = [value] }
        return [
            "resource": .string(path), "path": .string(path), "httpMethod": .string(method),
            "headers": headers, "multiValueHeaders": .object(multi),
            "queryStringParameters": nil, "multiValueQueryStringParameters": nil,
            "pathParameters": nil, "stageVariables": nil,
            "requestContext": [
                "resourceId": "q1w2e3", "resourcePath": .string(path), "httpMethod": .string(method),
                "extendedRequestId": "AbCdEfGhIjKlMnO=", "requestTime": .string(CivilTime.apiGatewayTime(time)),
                "path": .string("/prod\(path)"), "accountId": .string(account), "protocol": "HTTP/1.1", "stage": "prod",
                "domainPrefix": .string(apiID), "requestTimeEpoch": .number(epoch), "requestId": .string(requestID),
                "identity": ["sourceIp": "203.0.113.7", "userAgent": "Inkra/1.0 (iOS)"],
                "domainName": .string(host), "apiId": .string(apiID),
            ],
            "body": body.map(JSONValue.string) ?? nil,
            "isBase64Encoded": false,
        ]
    }

    private static func http(
        method: String, path: String, body: String?, bearer: String?, time: Timestamp, epoch: Int, requestID: String
    ) -> JSONValue {
        let headers = proxyHeaders(bearer: bearer, lowercased: true)
        var event: JSONValue = [
            "version": "2.0", "routeKey": .string("\(method) \(path)"), "rawPath": .string(path), "rawQueryString": "",
            "headers": headers,
            "requestContext": [
                "accountId": .string(account), "apiId": .string(apiID), "domainName": .string(host),
                "domainPrefix": .string(apiID),
                "http": [
                    "method": .string(method), "path": .string(path), "protocol": "HTTP/1.1", "sourceIp": "203.0.113.7",
                    "userAgent": "Inkra/1.0 (iOS)",
                ],
                "requestId": .string(requestID), "routeKey": .string("\(method) \(path)"), "stage": "$default",
                "time": .string(CivilTime.apiGatewayTime(time)), "timeEpoch": .number(epoch),
            ],
            "isBase64Encoded": false,
        ]
        if let body { event.set(.string(body), at: ["body"]) }
        return event
    }
}
