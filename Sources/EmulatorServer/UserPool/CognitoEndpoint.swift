import EmulatorKit
import Foundation
import InkraJSON
import LocalUserPool

/// The Cognito Identity Provider API over the local ``UserPool``, in the service's JSON protocol
/// (`POST /`, `X-Amz-Target: AWSCognitoIdentityProviderService.<Operation>`, JSON 1.1, errors as
/// `{"__type": …, "message": …}`), so boto3, the AWS CLI and the app's SDK talk to it unchanged
/// through a custom endpoint. Also serves the pool's `/<poolId>/.well-known/jwks.json` and
/// `/<poolId>/.well-known/openid-configuration` at the issuer's path.
package final class CognitoEndpoint: Sendable {
    /// The largest request body read (Cognito's requests are small).
    package static let requestLimit = 1 << 20
    /// The `X-Amz-Target` prefix.
    static let targetPrefix = "AWSCognitoIdentityProviderService."

    /// The pool served.
    package let pool: UserPool

    /// An endpoint over a pool.
    package init(pool: UserPool) { self.pool = pool }

    /// The answer to a request over ``requestLimit``.
    package static func requestTooLarge() -> LocalHTTPResponse {
        reply(CognitoError("InvalidParameterException", "The request is too large.", status: 413))
    }

    /// Answers one HTTP request.
    package func respond(_ request: LocalHTTPRequest) async -> LocalHTTPResponse {
        let wellKnown = "/\(pool.settings.poolID)/.well-known/"
        if request.method == "GET" || request.method == "HEAD" {
            switch request.path {
            case wellKnown + "jwks.json":
                return LocalHTTPResponse(
                    status: 200, headers: [("Content-Type", "application/json")], body: Array(pool.jwks))
            case wellKnown + "openid-configuration":
                return LocalHTTPResponse(
                    status: 200, headers: [("Content-Type", "application/json")], body: openIDConfiguration.jsonBytes)
            default:
                return LocalHTTPResponse(
                    status: 404, headers: [("Content-Type", "application/json")],
                    body: Array(#"{"message":"Not found: the pool serves POST / and \#(wellKnown)…"}"#.utf8))
            }
        }
        guard request.method == "POST" else {
            return Self.reply(CognitoError("UnknownOperationException", "", status: 404))
        }
        guard let target = request.header("X-Amz-Target"), target.hasPrefix(Self.targetPrefix) else {
            return Self.reply(CognitoError("UnknownOperationException", ""))
        }
        let operation = String(target.dropFirst(Self.targetPrefix.count))
        guard let input = (try? JSONParser.parse(request.body))?.object ?? (request.body.isEmpty ? JSONObject() : nil)
        else {
            return Self.reply(CognitoError("SerializationException", "The request body is not a JSON object."))
        }
        do {
            return Self.reply(json: try perform(operation, CognitoRequest(input)))
        } catch {
            return Self.reply(error)
        }
    }

    /// The pool's OpenID discovery document.
    var openIDConfiguration: JSONValue {
        let issuer = pool.issuer
        return [
            "issuer": .string(issuer),
            "jwks_uri": .string(pool.keysURL ?? issuer + "/.well-known/jwks.json"),
            "response_types_supported": ["code", "token"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "aws.cognito.signin.user.admin"],
        ]
    }

    static func reply(json: JSONValue) -> LocalHTTPResponse {
        LocalHTTPResponse(status: 200, headers: headers(), body: json.jsonBytes)
    }

    static func reply(_ error: CognitoError) -> LocalHTTPResponse {
        let body: JSONValue = ["__type": .string(error.type), "message": .string(error.message)]
        return LocalHTTPResponse(
            status: error.status, headers: headers() + [("x-amzn-ErrorType", "\(error.type):")], body: body.jsonBytes)
    }

    private static func headers() -> [(name: String, value: String)] {
        [("Content-Type", "application/x-amz-json-1.1"), ("x-amzn-RequestId", UUID().uuidString.lowercased())]
    }
}

/// An operation's input, with Cognito's answers to a missing or mistyped member.
struct CognitoRequest {
    let input: JSONObject

    init(_ input: JSONObject) { self.input = input }

    /// A required string member.
    func string(_ name: String) throws(CognitoError) -> String {
        guard let value = input[name] else {
            throw CognitoError.invalidParameterValue(
                "1 validation error detected: Value null at '\(Self.camel(name))' failed to satisfy constraint: "
                    + "Member must not be null")
        }
        guard let text = value.string else {
            throw CognitoError("SerializationException", "\(name) must be a string.")
        }
        return text
    }

    /// An optional string member.
    func optionalString(_ name: String) throws(CognitoError) -> String? {
        input[name] == nil || input[name] == .null ? nil : try string(name)
    }

    /// A map of strings (`AuthParameters`, `ChallengeResponses`).
    func map(_ name: String) throws(CognitoError) -> [String: String] {
        guard let value = input[name], value != .null else { return [:] }
        guard let object = value.object else { throw CognitoError("SerializationException", "\(name) must be a map.") }
        var map: [String: String] = [:]
        for (key, entry) in object.pairs {
            guard let text = entry.string else {
                throw CognitoError("SerializationException", "\(name).\(key) must be a string.")
            }
            map[key] = text
        }
        return map
    }

    /// `[{"Name": …, "Value": …}]` (`UserAttributes`).
    func attributes(_ name: String) throws(CognitoError) -> [(String, String)] {
        guard let value = input[name], value != .null else { return [] }
        guard let list = value.array else { throw CognitoError("SerializationException", "\(name) must be a list.") }
        var attributes: [(String, String)] = []
        for entry in list {
            guard let attribute = entry["Name"]?.string else {
                throw CognitoError("SerializationException", "Every entry of \(name) needs a Name.")
            }
            attributes.append((attribute, entry["Value"]?.string ?? ""))
        }
        return attributes
    }

    static func camel(_ name: String) -> String { name.prefix(1).lowercased() + name.dropFirst() }
}

extension CognitoError {
    static func invalidParameterValue(_ message: String) -> CognitoError {
        CognitoError("InvalidParameterException", message)
    }
}
