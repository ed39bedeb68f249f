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
        let stage: String
        let resource: String
        switch proxy.version {
        case .v1:
            stage = context["stage"]?.scalarText ?? "prod"
            resource = context["resourcePath"]?.string ?? proxy.event["resource"]?.string ?? proxy.path ?? "/"
        case .v2:
            stage = context["stage"]?.scalarText ?? "$default"
            resource = proxy.path ?? "/"
        }
        // Appended into one buffer of the right size: interpolation grew it two or three times.
        let parts = [region, ":", account, ":", api, "/", stage, "/", method, resource]
        var arn = "arn:aws:execute-api:"
        arn.reserveCapacity(arn.utf8.count + parts.reduce(0) { $0 + $1.utf8.count })
        for part in parts { arn += part }
        return arn
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
        return region(inHost: host) ?? "us-east-1"
    }

    /// The label after the first `execute-api` label of a host name (empty labels skipped), read
    /// from its bytes without splitting them: a local host has no such label, and the split cost
    /// as much as the rest of the ARN.
    static func region(inHost host: String) -> String? {
        let bytes = host.utf8
        var afterExecuteAPI = false
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: ".")) ?? bytes.endIndex
            if start < end {
                let label = bytes[start..<end]
                if afterExecuteAPI { return String(Substring(label)) }
                afterExecuteAPI = label.elementsEqual("execute-api".utf8)
            }
            start = end < bytes.endIndex ? bytes.index(after: end) : end
        }
        return nil
    }
}
