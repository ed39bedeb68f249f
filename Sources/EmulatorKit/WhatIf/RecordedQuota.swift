import InkraAuth
import InkraHandlers
import InkraJSON
import InkraUsage

/// The monthly limit a recorded authorizer context carries, moved to other limits.
///
/// The authorizer puts the caller's monthly limit into its context as `quota`, and the functions
/// behind it use that instead of their own limits. A recorded event keeps the context the
/// authorizer gave when it was recorded, so replayed as is it would keep the old monthly limit. A
/// `quota` equal to the caller's tier's monthly limit under the recorded limits came from the tier,
/// and becomes the tier's monthly limit under the new ones, as the authorizer would now answer;
/// any other `quota` is the user's own (`custom:monthly_quota`) and stays.
package struct RecordedQuota: Sendable {
    /// The limits the traffic was recorded under.
    package var recorded: TierLimits
    /// The limits it is replayed under.
    package var replayed: TierLimits

    /// The event with its context's `quota` moved, when it came from the tier; else as it was.
    /// Contexts of a REST Lambda authorizer (`requestContext.authorizer.quota`, a string) and of an
    /// HTTP API Lambda authorizer (`requestContext.authorizer.lambda.quota`) are read; claims of a
    /// Cognito or JWT authorizer carry no tier quota and stay as they are.
    package func moving(_ event: JSONValue) -> JSONValue {
        guard let section = event["requestContext"]?["authorizer"], section.object != nil else { return event }
        let path =
            section["lambda"]?.object != nil
            ? ["requestContext", "authorizer", "lambda", "quota"] : ["requestContext", "authorizer", "quota"]
        guard let quota = event[path: path], let value = Self.integer(quota),
            let identity = CallerIdentity(authorizer: section.object)
        else { return event }
        let tier = identity.tier.rawValue
        guard value == recorded.limits(forTier: tier).monthly else { return event }
        let moved = replayed.limits(forTier: tier).monthly
        return event.setting(quota.string != nil ? .string(String(moved)) : .number(moved), at: path)
    }

    private static func integer(_ value: JSONValue) -> Int? {
        if let text = value.string { return Int(text) }
        return value.int
    }
}
