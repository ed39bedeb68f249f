import InkraHandlers
import InkraJSON

/// The authorizer events API Gateway builds from a request.
enum AuthorizerEvents {
    /// The ARN the authorizer's answer is checked against: REST's `methodArn`, HTTP API's
    /// `routeArn`. API Gateway checks a cached answer against it too, so it is made for every
    /// request; the event itself only when the authorizer runs.
    static func resourceArn(for proxy: ProxyRequest) -> String {
        let context = proxy.requestContext ?? JSONObject()
        let region = Self.region(of: proxy)
        let account = context["accountId"]?.scalarText ?? "123456789012"
        let api = context["apiId"]?.scalarText ?? "local"
        let method = proxy.httpMethod ?? "GET"
        switch proxy.version {
        case .v1:
            let stage = context["stage"]?.scalarText ?? "prod"
            let resource = context["resourcePath"]?.string ?? proxy.event["resource"]?.string ?? proxy.path ?? "/"
            return "arn:aws:execute-api:\(region):\(account):\(api)/\(stage)/\(method)\(resource)"
        case .v2:
            let stage = context["stage"]?.scalarText ?? "$default"
            return "arn:aws:execute-api:\(region):\(account):\(api)/\(stage)/\(method)\(proxy.path ?? "/")"
        }
    }

    /// REST API: a `TOKEN` event; HTTP API: a payload 2.0 `REQUEST` event.
    static func event(for proxy: ProxyRequest, token: String, resourceArn: String) -> JSONValue {
        switch proxy.version {
        case .v1:
            return ["type": "TOKEN", "authorizationToken": .string(token), "methodArn": .string(resourceArn)]
        case .v2:
            let method = proxy.httpMethod ?? "GET"
            let path = proxy.path ?? "/"
            var event: JSONValue = [
                "version": "2.0",
                "type": "REQUEST",
                "routeArn": .string(resourceArn),
                "identitySource": [.string(token)],
                "routeKey": proxy.event["routeKey"] ?? .string("\(method) \(path)"),
                "rawPath": .string(path),
                "rawQueryString": proxy.event["rawQueryString"] ?? "",
                "headers": proxy.event["headers"] ?? [:],
            ]
            var requestContext = proxy.requestContext ?? JSONObject()
            requestContext["authorizer"] = nil
            event.set(.object(requestContext), at: ["requestContext"])
            return event
        }
    }

    /// The region from the API's domain name (`id.execute-api.REGION.amazonaws.com`), else us-east-1.
    static func region(of proxy: ProxyRequest) -> String {
        let host = proxy.requestContext?["domainName"]?.string ?? proxy.header("Host") ?? ""
        // By bytes: a local host name has no `execute-api` label, and splitting its characters
        // cost a microsecond a request.
        let labels = host.utf8.split(separator: UInt8(ascii: "."))
        if let index = labels.firstIndex(where: { $0.elementsEqual("execute-api".utf8) }), index + 1 < labels.count {
            return String(Substring(labels[index + 1]))
        }
        return "us-east-1"
    }
}
