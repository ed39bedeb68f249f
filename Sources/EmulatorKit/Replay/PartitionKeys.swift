import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON

/// What an event shares state through, read before it runs: its user — from the authorizer section
/// a recording carries, else from its token's `sub` (read, not verified: this only groups events,
/// the authorizer still checks every token) — and its `Idempotency-Key`. Events that share a key
/// must run in input order; events that share none may run side by side.
enum PartitionKeys {
    /// An event's keys.
    /// - Parameters:
    ///   - event: the event.
    ///   - function: the function it is for.
    ///   - users: the user key of each token seen lately; a token is used for an hour, so most
    ///     events' tokens are found here rather than decoded again.
    static func of(_ event: JSONValue, function: FunctionName, users: inout [String: String]) -> [String] {
        func user(ofToken token: String) -> String {
            if let key = users[token] { return key }
            if users.count >= 10_000 { users.removeAll(keepingCapacity: true) }
            let key = Self.user(ofToken: token)
            users[token] = key
            return key
        }
        var keys: [String] = []
        if function == .authorizer {
            if let token = event["authorizationToken"]?.string ?? header("Authorization", in: event) {
                keys.append(user(ofToken: token))
            }
            return keys
        }
        if let identity = CallerIdentity(authorizer: event["requestContext"]?["authorizer"]?.object) {
            keys.append("user " + identity.userID)
        } else if let token = header("Authorization", in: event) {
            keys.append(user(ofToken: token))
        }
        if let key = header("Idempotency-Key", in: event) { keys.append("idempotency " + key) }
        return keys
    }

    /// A header of a proxy event, by name in any case (`headers`, else `multiValueHeaders`).
    static func header(_ name: String, in event: JSONValue) -> String? {
        if let value = event["headers"]?.object?.value(forCaseInsensitiveKey: name)?.string { return value }
        return event["multiValueHeaders"]?.object?.value(forCaseInsensitiveKey: name)?.array?.first?.string
    }

    /// `user <sub>` from a JWT's payload, or `token <token>` when it has none to read.
    static func user(ofToken token: String) -> String {
        if let sub = (try? CompactToken(token))?.payload["sub"]?.string { return "user " + sub }
        return "token " + token
    }
}
