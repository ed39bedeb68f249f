import InkraAuth
import InkraJSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a recording keeps of an invocation: enough to replay it to the same outcome, and no
/// credential, content or personal data (docs/configuration.md, `INKRA_RECORD_EVENTS`).
///
/// Credentials and client addresses and agents become ``marker``; the body keeps its form and
/// loses its text (``BodyRedaction``); the authorizer's context keeps who the caller is to the
/// limits (principal, user id, tier, quota, groups) and nothing else; generated questions become
/// their count.
package enum RecordingRedaction {
    /// What replaces a removed value.
    package static let marker = "[redacted]"

    /// Request headers that carry a credential (compared ignoring case).
    static let credentialHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "x-api-key", "x-amz-security-token",
    ]
    /// Request headers that describe the client: its address, its agent, where it is.
    static let clientHeaders: Set<String> = [
        "user-agent", "x-forwarded-for", "forwarded", "x-real-ip", "true-client-ip", "cf-connecting-ip",
        "x-client-ip", "x-cluster-client-ip", "fastly-client-ip", "x-original-forwarded-for", "client-ip",
        "x-amzn-remote-ip", "referer", "origin",
    ]
    /// Prefixes of client-describing headers (CloudFront's viewer headers, client hints).
    static let clientHeaderPrefixes = ["cloudfront-viewer-", "cloudfront-is-", "sec-ch-ua"]
    /// Authorizer context fields that stay: what the functions read to know the caller's limits.
    static let keptContext: Set<String> = [
        "principalId", "userId", "tier", "quota", "groups",
        "sub", "cognito:groups", "custom:subscription_tier", "custom:tier", "custom:monthly_quota",
    ]

    /// Whether a request header's value is removed.
    package static func isRemovedHeader(_ name: String) -> Bool {
        let lower = name.lowercased()
        return credentialHeaders.contains(lower) || clientHeaders.contains(lower)
            || clientHeaderPrefixes.contains { lower.hasPrefix($0) }
    }

    /// An API Gateway proxy event as a recording keeps it.
    package static func event(_ event: JSONValue) -> JSONValue {
        guard var object = event.object else { return .string(marker) }
        if let headers = object["headers"]?.object {
            object["headers"] = .object(headersRedacted(headers) { _ in .string(marker) })
        }
        if let headers = object["multiValueHeaders"]?.object {
            object["multiValueHeaders"] = .object(
                headersRedacted(headers) { value in
                    .array((value.array ?? [value]).map { _ in .string(marker) })
                })
        }
        if let cookies = object["cookies"]?.array { object["cookies"] = .array(cookies.map { _ in .string(marker) }) }
        for name in ["queryStringParameters", "multiValueQueryStringParameters"] {
            if let query = object[name]?.object { object[name] = .object(markingValues(of: query)) }
        }
        if let raw = object["rawQueryString"]?.string, !raw.isEmpty { object["rawQueryString"] = .string(marker) }
        if var context = object["requestContext"]?.object {
            context = requestContext(context)
            object["requestContext"] = .object(context)
        }
        if let body = object["body"]?.string {
            object["body"] = .string(Self.body(body, base64: object["isBase64Encoded"]?.bool == true))
        }
        return .object(object)
    }

    /// A body as a recording keeps it: see ``BodyRedaction``; a base64 body is decoded, redacted
    /// and encoded again (a body that is not base64 keeps its form: letters and digits become `A`).
    package static func body(_ text: String, base64: Bool) -> String {
        guard base64 else {
            return String(decoding: BodyRedaction.redact(Array(text.utf8)), as: UTF8.self)
        }
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
            return String(
                text.unicodeScalars.map { $0.properties.isAlphabetic || ("0"..."9").contains($0) ? "A" : Character($0) }
            )
        }
        return Data(BodyRedaction.redact(Array(data))).base64EncodedString()
    }

    /// A function's result as a recording keeps it: generated questions become their count.
    package static func response(_ result: JSONValue) -> JSONValue {
        guard var object = result.object, let text = object["body"]?.string,
            let body = try? JSONParser.parse(text), var fields = body.object,
            let questions = fields["questions"]?.array
        else { return result }
        fields["questions"] = .number(questions.count)
        object["body"] = .string(JSONValue.object(fields).jsonString)
        return .object(object)
    }

    /// An authorizer's answer as a recording keeps it: the decision only.
    package static func decision(_ result: JSONValue) -> JSONValue {
        var decision = JSONObject()
        if let principal = result["principalId"] { decision["principalId"] = principal }
        if let authorized = result["isAuthorized"]?.bool {
            decision["effect"] = .string(authorized ? "Allow" : "Deny")
        } else if let statements = result["policyDocument"]?["Statement"]?.array {
            let effects = Set(statements.compactMap { $0["Effect"]?.string })
            decision["effect"] = .string(effects.contains("Deny") ? "Deny" : effects.first ?? "Deny")
        }
        if let context = result["context"]?.object { decision["context"] = .object(authorizerContext(context)) }
        return .object(decision)
    }

    /// The claims of a verified token as a recording keeps them: what decides the caller's limits
    /// and nothing else — `sub` (the principal the decision already names; a refused token's
    /// decision names none), `token_use`, `iat`, `exp`, `cognito:groups`, the tier attributes
    /// (`custom:subscription_tier`, `custom:tier`) and `custom:monthly_quota`. Never the email, the
    /// username, the client or the token's identifiers.
    /// - Parameter claims: claims the verifier returned (or attached to an `expired` refusal).
    package static func claims(_ claims: CognitoClaims) -> JSONValue {
        var kept: JSONObject = ["sub": .string(claims.subject)]
        if let use = claims.tokenUse { kept["token_use"] = .string(use) }
        if let issued = claims.issuedAt { kept["iat"] = .number(String(seconds(issued))) }
        kept["exp"] = .number(String(seconds(claims.expiresAt)))
        if !claims.groups.isEmpty { kept["cognito:groups"] = .array(claims.groups.map(JSONValue.string)) }
        if let tier = claims.subscriptionTier { kept["custom:subscription_tier"] = .string(tier) }
        if let tier = claims.customTier { kept["custom:tier"] = .string(tier) }
        if let quota = claims.monthlyQuota { kept["custom:monthly_quota"] = .number(quota) }
        return .object(kept)
    }

    /// Whole seconds since 1970, as JWT time claims count them.
    private static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }

    /// An authorizer context (or a claims object) with only the caller's identity to the limits.
    package static func authorizerContext(_ context: JSONObject) -> JSONObject {
        var kept = JSONObject()
        for (key, value) in context.pairs {
            if keptContext.contains(key) {
                kept[key] = value
            } else if key == "claims", let claims = value.object {
                kept[key] = .object(authorizerContext(claims))
            } else if key == "lambda", let lambda = value.object {
                kept[key] = .object(authorizerContext(lambda))
            } else if key == "jwt", let jwt = value.object {
                var section = JSONObject()
                if let claims = jwt["claims"]?.object { section["claims"] = .object(authorizerContext(claims)) }
                if jwt["scopes"] != nil { section["scopes"] = .string(marker) }
                kept[key] = .object(section)
            } else {
                kept[key] = .string(marker)
            }
        }
        return kept
    }

    private static func requestContext(_ context: JSONObject) -> JSONObject {
        var context = context
        if let identity = context["identity"]?.object { context["identity"] = .object(markingValues(of: identity)) }
        if var http = context["http"]?.object {
            for key in ["sourceIp", "userAgent"] where http[key] != nil { http[key] = .string(marker) }
            context["http"] = .object(http)
        }
        if context["authentication"] != nil, context["authentication"] != .null {
            context["authentication"] = .string(marker)
        }
        if let authorizer = context["authorizer"]?.object {
            context["authorizer"] = .object(authorizerContext(authorizer))
        }
        return context
    }

    private static func headersRedacted(_ headers: JSONObject, _ replace: (JSONValue) -> JSONValue) -> JSONObject {
        var result = JSONObject()
        for (name, value) in headers.pairs {
            result[name] = isRemovedHeader(name) && value != .null ? replace(value) : value
        }
        return result
    }

    /// Every value that is not null becomes the marker (arrays element by element).
    private static func markingValues(of object: JSONObject) -> JSONObject {
        var result = JSONObject()
        for (key, value) in object.pairs {
            switch value {
            case .null: result[key] = .null
            case .array(let elements): result[key] = .array(elements.map { _ in .string(marker) })
            default: result[key] = .string(marker)
            }
        }
        return result
    }
}
