import Crypto
import Foundation
import InkraJSON
import InkraUsage

/// `--pseudonymize KEY`: every user id becomes `u-` and the hex HMAC-SHA256 of it under the key,
/// the same in events, expectations, authorizer decisions and a scan, so recorded traffic can
/// leave the account that recorded it and still replay against its starting state.
package struct Pseudonymizer: Sendable {
    private let key: SymmetricKey

    /// A pseudonymizer with a secret key (any text; keep it to pseudonymize later recordings alike).
    package init(key: String) { self.key = SymmetricKey(data: Data(key.utf8)) }

    /// The pseudonym of a user id: stable for a key, unrelated across keys.
    package func pseudonym(_ userID: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data(userID.utf8), using: key)
        return "u-" + code.map { String(format: "%02x", $0) }.joined()
    }

    /// Authorizer context (and claims) fields that hold the user id.
    static let userFields: Set<String> = ["principalId", "userId", "sub", "cognito:username", "username"]

    /// An event with the user ids of its authorizer section replaced.
    package func event(_ event: JSONValue) -> JSONValue {
        guard let authorizer = event["requestContext"]?["authorizer"] else { return event }
        return event.setting(context(authorizer), at: ["requestContext", "authorizer"])
    }

    /// An authorizer context or claims object (nested `lambda`, `claims`, `jwt.claims` too).
    package func context(_ value: JSONValue) -> JSONValue {
        guard let object = value.object else { return value }
        var result = JSONObject()
        for (key, member) in object.pairs {
            if Self.userFields.contains(key), let id = member.string, id != "[redacted]" {
                result[key] = .string(pseudonym(id))
            } else if member.object != nil {
                result[key] = context(member)
            } else {
                result[key] = member
            }
        }
        return .object(result)
    }

    /// A DynamoDB item (wire JSON) with the user ids in its keys replaced by their pseudonyms.
    package func item(_ item: JSONObject) -> JSONObject { Self.item(item, users: pseudonym) }

    /// An item of a scan of the stack's table as the local stack's store reads it: the table keeps
    /// no user id, a partition `USER#<p>` being named by the user's pseudonym `p`, the one the
    /// recordings hold; the local store, keyed by the development secret, finds the user `p` (or,
    /// with `pseudonymizer`, its pseudonym of `p`) under its own partition.
    package static func localItem(_ item: JSONObject, pseudonymizer: Pseudonymizer?) -> JSONObject {
        Self.item(item) { ServerSecret.development.userKey(pseudonymizer?.pseudonym($0) ?? $0) }
    }

    /// A DynamoDB item (wire JSON) with the user ids in its keys replaced: `USER#<id>` and what
    /// follows it, in any string attribute, becomes `USER#<users(id)>` and the same.
    package static func item(_ item: JSONObject, users: (String) -> String) -> JSONObject {
        var result = JSONObject()
        for (name, value) in item.pairs {
            if let text = value["S"]?.string, text.hasPrefix("USER#") {
                let rest = text.dropFirst(5)
                let id = rest.prefix { $0 != "#" }
                result[name] = ["S": .string("USER#" + users(String(id)) + rest.dropFirst(id.count))]
            } else {
                result[name] = value
            }
        }
        return result
    }
}
