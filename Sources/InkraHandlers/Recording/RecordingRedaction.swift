import HTTPText
import InkraAuth
import InkraJSON
import InkraTime
import InkraUsage

/// What a recording keeps of an invocation: an allow-list of what replay needs to reach the same
/// outcome, and nothing else (docs/configuration.md, `INKRA_RECORD_EVENTS`).
///
/// Of a function's event it keeps:
/// - `version`, `resource`, `path`, `rawPath`, `httpMethod`, `routeKey`, `isBase64Encoded`;
/// - of `headers` and `multiValueHeaders`: `Content-Type`; `Idempotency-Key` as a keyed pseudonym
///   (``idempotencyKey(_:)``), so a retry pairs with its call; `Authorization` as ``marker``, its
///   presence only (`replay endpoint` sends a token where an event had one);
/// - of `requestContext`: `requestId`, `requestTimeEpoch`, `timeEpoch`, `resourcePath`,
///   `httpMethod`, `routeKey`, `stage`, `apiId`, `http.method`, `http.path`, and the authorizer's
///   section as ``authorizerContext(_:)`` keeps it;
/// - the body's form without its text (``BodyRedaction``).
///
/// Every other header (`X-Device-Id`, `User-Agent`, `Cookie`…), field and section (query strings,
/// cookies, `identity`, `authentication`, path parameters…) is dropped. Of an authorizer's context
/// (and Cognito's claims) it keeps what decides the caller's limits: the user, as a keyed pseudonym
/// (``user(_:)``: `principalId`, `userId`, `sub`), `tier`, `quota`, `groups`, `cognito:groups`,
/// `custom:subscription_tier`, `custom:tier`, `custom:monthly_quota`; never the email. Generated
/// questions become their count.
///
/// Pseudonyms are HMAC-SHA256 under the function's ``ServerSecret``: the same user or key gets the
/// same pseudonym in every function and sandbox that shares the secret, and nothing about it
/// without the secret.
package struct RecordingRedaction: Sendable {
    /// What stands for the one removed value whose presence replay needs (`Authorization`), and
    /// for an event that was not JSON.
    package static let marker = "[redacted]"

    /// The secret the pseudonyms are keyed with.
    let secret: ServerSecret

    /// A redaction whose pseudonyms are keyed with `secret`.
    package init(secret: ServerSecret) { self.secret = secret }

    /// The pseudonym of a user id (a token's `sub`): 32 hex digits, the one that names the user's
    /// partition in the table.
    package func user(_ id: String) -> String { secret.userKey(id) }

    /// The pseudonym of an `Idempotency-Key` the function accepts (32 hex digits, itself a valid
    /// key); a key it refuses keeps its form without its text — its length and its control
    /// characters, every other character `x` — so the replay refuses it too.
    package func idempotencyKey(_ key: String) -> String {
        guard GenerateQuestions.accepts(idempotencyKey: key) else {
            return String(key.map { $0.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F } ? "x" : $0 })
        }
        return secret.pseudonym(of: key, purpose: "recording idempotency key")
    }

    /// Top-level members of an event that are kept as they are.
    static let keptFields: Set<String> = [
        "version", "resource", "path", "rawPath", "httpMethod", "routeKey", "isBase64Encoded",
    ]
    /// Members of `requestContext` that are kept as they are.
    static let keptRequestContext: Set<String> = [
        "requestId", "requestTimeEpoch", "timeEpoch", "resourcePath", "httpMethod", "routeKey", "stage", "apiId",
    ]
    /// Authorizer context (and claims) members that are kept as they are.
    static let keptContext: Set<String> = [
        "tier", "quota", "groups", "cognito:groups", "custom:subscription_tier", "custom:tier", "custom:monthly_quota",
    ]
    /// Authorizer context (and claims) members that name the user: kept as pseudonyms.
    static let userFields: Set<String> = ["principalId", "userId", "sub"]

    /// An API Gateway proxy event as a recording keeps it.
    package func event(_ event: JSONValue) -> JSONValue {
        guard let object = event.object else { return .string(Self.marker) }
        var kept = JSONObject()
        for (name, value) in object.pairs {
            switch name {
            case _ where Self.keptFields.contains(name): kept[name] = value
            case "headers", "multiValueHeaders":
                guard let headers = value.object else { continue }
                kept[name] = .object(self.headers(headers))
            case "requestContext":
                guard let context = value.object else { continue }
                kept[name] = .object(requestContext(context))
            case "body":
                guard let body = value.string else {
                    kept[name] = Self.emptied(value)
                    continue
                }
                kept[name] = .string(Self.body(body, base64: object["isBase64Encoded"]?.bool == true))
            default: continue
            }
        }
        return .object(kept)
    }

    /// A body as a recording keeps it: see ``BodyRedaction``; a base64 body is decoded, redacted
    /// and encoded again (a body that is not base64 keeps its form: letters and digits become `A`).
    package static func body(_ text: String, base64: Bool) -> String {
        guard base64 else {
            return String(decoding: BodyRedaction.redact(Array(text.utf8)), as: UTF8.self)
        }
        guard let data = Base64.decode(text, ignoringUnknownCharacters: true) else {
            return String(
                text.unicodeScalars.map { $0.properties.isAlphabetic || ("0"..."9").contains($0) ? "A" : Character($0) }
            )
        }
        return Base64.encode(BodyRedaction.redact(data))
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

    /// An authorizer's answer as a recording keeps it: the principal (a pseudonym), the effect and
    /// the context (``authorizerContext(_:)``).
    package func decision(_ result: JSONValue) -> JSONValue {
        var decision = JSONObject()
        if let principal = result["principalId"] { decision["principalId"] = userValue(principal) }
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
    /// and nothing else — `sub` (as its pseudonym, the principal the decision names; a refused
    /// token's decision names none), `token_use`, `iat`, `exp`, `cognito:groups`, the tier
    /// attributes (`custom:subscription_tier`, `custom:tier`) and `custom:monthly_quota`. Never the
    /// email, the username, the client or the token's identifiers.
    /// - Parameter claims: claims the verifier returned (or attached to an `expired` refusal).
    package func claims(_ claims: CognitoClaims) -> JSONValue {
        var kept: JSONObject = ["sub": .string(user(claims.subject))]
        if let use = claims.tokenUse { kept["token_use"] = .string(use) }
        if let issued = claims.issuedAt { kept["iat"] = .number(String(Self.seconds(issued))) }
        kept["exp"] = .number(String(Self.seconds(claims.expiresAt)))
        if !claims.groups.isEmpty { kept["cognito:groups"] = .array(claims.groups.map(JSONValue.string)) }
        if let tier = claims.subscriptionTier { kept["custom:subscription_tier"] = .string(tier) }
        if let tier = claims.customTier { kept["custom:tier"] = .string(tier) }
        if let quota = claims.monthlyQuota { kept["custom:monthly_quota"] = .number(quota) }
        return .object(kept)
    }

    /// Whole seconds since 1970, as JWT time claims count them.
    private static func seconds(_ date: Timestamp) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }

    /// An authorizer context (or a claims object, or API Gateway's `lambda`, `claims` and
    /// `jwt.claims` sections of one) with only the caller's identity to the limits: the user as a
    /// pseudonym and ``keptContext``; every other member is dropped.
    package func authorizerContext(_ context: JSONObject) -> JSONObject {
        var kept = JSONObject()
        for (key, value) in context.pairs {
            if Self.keptContext.contains(key) {
                kept[key] = value
            } else if Self.userFields.contains(key) {
                kept[key] = userValue(value)
            } else if key == "claims" || key == "lambda", let section = value.object {
                kept[key] = .object(authorizerContext(section))
            } else if key == "jwt", let claims = value["claims"]?.object {
                kept[key] = ["claims": .object(authorizerContext(claims))]
            }
        }
        return kept
    }

    /// A user id's pseudonym, where a function would read one (an empty one names nobody and stays).
    private func userValue(_ value: JSONValue) -> JSONValue {
        guard let id = value.scalarText, !id.isEmpty else { return value }
        return .string(user(id))
    }

    private func requestContext(_ context: JSONObject) -> JSONObject {
        var kept = JSONObject()
        for (key, value) in context.pairs {
            if Self.keptRequestContext.contains(key) {
                kept[key] = value
            } else if key == "http", let http = value.object {
                var section = JSONObject()
                for name in ["method", "path"] { if let member = http[name] { section[name] = member } }
                kept[key] = .object(section)
            } else if key == "authorizer", let authorizer = value.object {
                kept[key] = .object(authorizerContext(authorizer))
            }
        }
        return kept
    }

    /// The headers replay needs, each copy of them: `Content-Type`, `Idempotency-Key` as its
    /// pseudonym, `Authorization` as ``marker``.
    private func headers(_ headers: JSONObject) -> JSONObject {
        var kept = JSONObject()
        for (name, value) in headers.pairs {
            let replace: (String) -> String
            switch name.lowercased() {
            case "content-type": replace = { $0 }
            case "idempotency-key": replace = idempotencyKey
            case "authorization": replace = { _ in Self.marker }
            default: continue
            }
            // A function reads a header's scalar as text: numbers and Booleans are replaced too.
            if let text = value.scalarText {
                kept[name] = .string(replace(text))
            } else if let values = value.array {
                kept[name] = .array(values.map { $0.scalarText.map { .string(replace($0)) } ?? Self.emptied($0) })
            } else {
                kept[name] = Self.emptied(value)
            }
        }
        return kept
    }

    /// A value no function reads as text, of the same JSON type and without content (a body or
    /// header of the wrong type is refused, naming its type).
    private static func emptied(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object: [:]
        case .array: []
        case .number: 0
        case .string: ""
        case .null, .bool: value
        }
    }
}
