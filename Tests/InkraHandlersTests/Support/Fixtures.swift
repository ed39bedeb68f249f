import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTesting

/// Events shaped as API Gateway sends them (InkraTesting's builders), and the authorizer events of
/// `Fixtures/` (from `sam local generate-event`).
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func load(_ name: String) -> JSONValue {
        do {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            return try JSONParser.parse(Array(data))
        } catch {
            fatalError("fixture \(name): \(error)")
        }
    }

    /// A REST API (v1) proxy event: InkraTesting's `ProxyEvent.rest`.
    static func rest(
        method: String = "POST",
        path: String = "/questions",
        body: String? = nil,
        base64: Bool = false,
        authorizer: JSONValue? = nil,
        headers: [String: String] = [:],
        at time: Date? = nil
    ) -> JSONValue {
        ProxyEvent.rest(
            method, path, body: body, headers: headers, at: time ?? ProxyEvent.defaultTime, base64: base64,
            authorizer: authorizer)
    }

    /// An HTTP API (v2) proxy event: InkraTesting's `ProxyEvent.http`.
    static func http(
        method: String = "POST",
        path: String = "/questions",
        body: String? = nil,
        base64: Bool = false,
        authorizer: JSONValue? = nil,
        headers: [String: String] = [:],
        at time: Date? = nil
    ) -> JSONValue {
        ProxyEvent.http(
            method, path, body: body, headers: headers, at: time ?? ProxyEvent.defaultTime, base64: base64,
            authorizer: authorizer)
    }

    /// A REST Lambda authorizer's context, as API Gateway passes it on (values as strings beside
    /// `principalId`), for a caller of a tier.
    static func lambdaContext(_ user: String, tier: String = "free", quota: Int? = nil, email: String? = nil)
        -> JSONValue
    {
        Caller(user, tier: Tier(rawValue: tier), quota: quota, email: email).restAuthorizer()
    }
}

/// Parses `2026-03-10T10:00:00Z` for tests.
func instant(_ text: String) -> Date { Date(iso8601: text) }
