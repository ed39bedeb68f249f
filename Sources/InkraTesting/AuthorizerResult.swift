import InkraHandlers
import InkraJSON

/// What a Lambda authorizer answered, read as API Gateway reads it: an IAM policy with
/// `principalId` and `context`, or an HTTP API simple response (`isAuthorized`, `context`).
///
/// A refusal is not an answer but a failed invocation (`Unauthorized`, which API Gateway turns
/// into 401), so a test expects it as an error:
/// `await #expect(throws: FunctionError.unauthorized) { try await authorizer.handle(event, context: clock.context) }`.
public struct AuthorizerResult: Sendable, Hashable, CustomStringConvertible {
    /// The answer as the function returned it.
    public let json: JSONValue
    /// Whether API Gateway lets the request through: `isAuthorized`, or a policy that allows
    /// `execute-api:Invoke` and denies nothing.
    public let isAllowed: Bool
    /// `principalId` (policy answers only).
    public let principalID: String?
    /// `context`: what the functions behind the authorizer learn of the caller.
    public let context: JSONObject

    /// Reads an authorizer's answer.
    /// - Throws: ``TestFailure`` when it is neither a policy answer nor a simple response.
    public init(_ json: JSONValue) throws(TestFailure) {
        self.json = json
        context = json["context"]?.object ?? JSONObject()
        if let authorized = json["isAuthorized"]?.bool {
            isAllowed = authorized
            principalID = nil
            return
        }
        guard let statements = json["policyDocument"]?["Statement"]?.array, !statements.isEmpty else {
            throw TestFailure(
                "not an authorizer's answer (no isAuthorized, no policyDocument.Statement): \(json.jsonString)")
        }
        let effects = statements.compactMap { $0["Effect"]?.string }
        isAllowed = effects.contains("Allow") && !effects.contains("Deny")
        principalID = json["principalId"]?.scalarText
    }

    /// A proxy event with this answer where API Gateway puts it for the function: in a REST API
    /// event, `principalId` and the context's values as strings; in an HTTP API (payload 2.0)
    /// event, the context under `lambda`, values as they were.
    public func injected(into event: JSONValue) -> JSONValue {
        var section = JSONObject()
        if event["version"]?.string == "2.0" {
            section["lambda"] = .object(context)
        } else {
            if let principalID { section["principalId"] = .string(principalID) }
            for (key, value) in context.pairs { section[key] = .string(value.scalarText ?? value.jsonString) }
            section["integrationLatency"] = 0
        }
        return event.setting(.object(section), at: ["requestContext", "authorizer"])
    }

    /// The answer's JSON.
    public var description: String { json.jsonString }
}
