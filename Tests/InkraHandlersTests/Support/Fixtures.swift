import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTesting
import InkraTime

/// The authorizer events of `Fixtures/` (from `sam local generate-event`), and a REST authorizer's
/// context for a caller; proxy events come from InkraTesting's `ProxyEvent` as they are.
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

    /// A REST Lambda authorizer's context, as API Gateway passes it on (values as strings beside
    /// `principalId`), for a caller of a tier.
    static func lambdaContext(_ user: String, tier: String = "free", quota: Int? = nil, email: String? = nil)
        -> JSONValue
    {
        Caller(user, tier: Tier(rawValue: tier), quota: quota, email: email).restAuthorizer()
    }
}

/// Parses `2026-03-10T10:00:00Z` for tests.
func instant(_ text: String) -> Timestamp { Timestamp(iso8601: text) }
