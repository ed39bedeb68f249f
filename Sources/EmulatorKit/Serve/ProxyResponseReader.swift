import Foundation
import HTTPText
import InkraHandlers
import InkraJSON

/// Turns what a function returned into the HTTP response API Gateway sends, as each API kind
/// does: REST wants a proxy response and answers 502 otherwise; HTTP API also takes any other
/// JSON as a 200 `application/json` body.
enum ProxyResponseReader {
    /// The HTTP response for an invocation's outcome.
    static func response(for outcome: Invocation.Outcome, version: ProxyRequest.Version) -> LocalHTTPResponse {
        switch outcome {
        case .failure:
            return failed(version)
        case .success(let json):
            if let response = proxyResponse(json, version: version) { return response }
            guard version == .v2 else { return failed(version) }
            let body: [UInt8] = json.string.map { Array($0.utf8) } ?? json.jsonBytes
            return LocalHTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: body)
        }
    }

    /// API Gateway's own answer when the integration failed.
    static func failed(_ version: ProxyRequest.Version) -> LocalHTTPResponse {
        switch version {
        case .v1:
            message(
                502, "Internal server error", code: .gatewayError,
                headers: [("x-amzn-ErrorType", "InternalServerErrorException")])
        case .v2:
            message(500, "Internal Server Error")
        }
    }

    /// A `{"message":…}` response (an HTTP API's), or with a code `{"error":…,"code":…}` (a REST
    /// API's, as template.yaml's gateway responses answer).
    static func message(
        _ status: Int, _ text: String, code: ErrorCode? = nil, headers: [(name: String, value: String)] = []
    ) -> LocalHTTPResponse {
        let body: JSONValue =
            code.map { ["error": .string(text), "code": .string($0.rawValue)] } ?? ["message": .string(text)]
        return LocalHTTPResponse(
            status: status, headers: [("Content-Type", "application/json")] + headers, body: body.jsonBytes)
    }

    private static func proxyResponse(_ json: JSONValue, version: ProxyRequest.Version) -> LocalHTTPResponse? {
        guard let object = json.object, let status = object["statusCode"]?.int, (100...599).contains(status) else {
            return nil
        }
        var headers: [(name: String, value: String)] = []
        for (name, value) in object["headers"]?.object?.pairs ?? [] {
            guard let text = value.scalarText else { return nil }
            headers.append((name, text))
        }
        for (name, values) in object["multiValueHeaders"]?.object?.pairs ?? [] {
            for value in values.array ?? [] {
                guard let text = value.scalarText else { return nil }
                if !headers.contains(where: { $0.name.caseInsensitiveEquals(name) && $0.value == text }) {
                    headers.append((name, text))
                }
            }
        }
        if version == .v2 {
            for cookie in object["cookies"]?.array ?? [] {
                if let text = cookie.string { headers.append(("Set-Cookie", text)) }
            }
        }
        var body: [UInt8] = []
        switch object["body"] {
        case .string(let text)?:
            if object["isBase64Encoded"]?.bool == true {
                guard let data = Data(base64Encoded: text) else { return nil }
                body = Array(data)
            } else {
                body = Array(text.utf8)
            }
        case nil, .null?:
            break
        default:
            return nil
        }
        if version == .v2, !headers.contains(where: { $0.name.caseInsensitiveEquals("Content-Type") }) {
            headers.append(("Content-Type", "application/json"))
        }
        return LocalHTTPResponse(status: status, headers: headers, body: body)
    }
}
