import InkraJSON

/// A Lambda authorizer event of any of API Gateway's kinds, detected from its shape.
public struct AuthorizerRequest: Sendable {
    /// The kind of authorizer event.
    public enum Kind: String, Sendable, Hashable {
        /// REST API `TOKEN` authorizer: `authorizationToken` and `methodArn`.
        case token
        /// REST API `REQUEST` authorizer: headers and `methodArn`.
        case request
        /// HTTP API authorizer, payload 1.0: `identitySource` a string, `methodArn`.
        case httpV1
        /// HTTP API authorizer, payload 2.0: `identitySource` an array, `routeArn`.
        case httpV2
    }

    /// The event's kind.
    public let kind: Kind
    /// The token as sent (possibly with its `Bearer ` prefix), or `nil` when the caller sent none.
    public let token: String?
    /// `methodArn` or `routeArn`.
    package let resourceArn: String?

    /// Reads an authorizer event.
    /// - Throws: ``FunctionError`` when the event is not a JSON object.
    public init(event: JSONValue) throws(FunctionError) {
        guard let object = event.object else {
            throw FunctionError.invalidEvent("an authorizer event must be a JSON object, not \(event.typeName)")
        }
        let type = object["type"]?.string?.uppercased()
        let headers = object["headers"]?.object
        let headerToken = headers?.value(forCaseInsensitiveKey: "Authorization")?.string
        if type == "TOKEN" {
            kind = .token
            token = object["authorizationToken"]?.string
            resourceArn = object["methodArn"]?.string
        } else if object["version"]?.string == "2.0" || object["routeArn"] != nil {
            kind = .httpV2
            let sources = object["identitySource"]?.array?.compactMap(\.string) ?? []
            token = sources.first { !$0.isEmpty } ?? headerToken
            resourceArn = object["routeArn"]?.string
        } else if object["version"]?.string == "1.0" || object["identitySource"]?.string != nil {
            kind = .httpV1
            token = object["identitySource"]?.string.flatMap { $0.isEmpty ? nil : $0 } ?? headerToken
            resourceArn = object["methodArn"]?.string
        } else {
            kind = .request
            let multi = object["multiValueHeaders"]?.object?.value(forCaseInsensitiveKey: "Authorization")?.array
            token = headerToken ?? multi?.first?.string
            resourceArn = object["methodArn"]?.string
        }
    }
}
