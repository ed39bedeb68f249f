import Foundation
import InkraHandlers
import InkraJSON
import InkraTime

/// The claims the authorizer verified, per user, as `import --with-tokens` writes them into
/// `.inkra-tokens.json` beside the events it imports (hidden, so `replay` does not take it for an
/// event), and `replay` signs them back into tokens (``RecordedTokenSigner``).
///
/// One entry per authorizer recording that holds claims (``Recording/claims``): its instant, its
/// request id, the claims without `sub` (the user is the key, pseudonymized as the events are),
/// and the reason the token was refused, if it was:
///
/// ```json
/// {"v": 1, "users": {"u-3f…": [
///   {"at": "2026-11-16T08:00:00.000Z", "epochMillis": 1794816000000, "requestId": "…",
///    "claims": {"token_use": "id", "iat": 1794815990, "exp": 1794819590, "cognito:groups": ["premium_tier"]}},
///   {"at": "2026-11-16T09:40:00.000Z", "epochMillis": 1794822000000, "requestId": "…",
///    "claims": {"token_use": "id", "iat": 1794815990, "exp": 1794819590}, "refusal": "expired"}]}}
/// ```
package struct RecordedTokens: Sendable, Hashable {
    /// The file's name in an imported folder.
    package static let fileName = ".inkra-tokens.json"

    /// One authorizer recording's claims.
    package struct Entry: Sendable, Hashable {
        /// When the authorizer ran, in milliseconds since 1970.
        package var epochMilliseconds: Int64
        /// The authorizer's Lambda request id.
        package var requestID: String
        /// The verified claims that decide the caller's limits, without `sub`.
        package var claims: JSONObject
        /// Why the token was refused (`expired`), or `nil` when it was accepted.
        package var refusal: String?
    }

    /// Each user's entries, oldest first.
    package private(set) var users: [String: [Entry]] = [:]

    /// No claims.
    package init() {}

    /// How many entries there are, over every user.
    package var count: Int { users.values.reduce(0) { $0 + $1.count } }

    /// Adds an authorizer recording's claims, under its subject (pseudonymized when a
    /// pseudonymizer is given).
    /// - Returns: the user it was filed under, or `nil` when the recording holds no claims with a
    ///   subject.
    @discardableResult
    package mutating func add(_ recording: Recording, pseudonymizer: Pseudonymizer? = nil) -> String? {
        guard var claims = recording.claims?.object, let subject = claims["sub"]?.string, !subject.isEmpty else {
            return nil
        }
        claims["sub"] = nil
        let user = pseudonymizer?.pseudonym(subject) ?? subject
        let entry = Entry(
            epochMilliseconds: recording.epochMilliseconds, requestID: recording.requestID, claims: claims,
            refusal: recording.refusal)
        var entries = users[user] ?? []
        let index = entries.firstIndex { $0.epochMilliseconds > entry.epochMilliseconds } ?? entries.endIndex
        entries.insert(entry, at: index)
        users[user] = entries
        return user
    }

    /// The claims that apply to a function's event at an instant: the latest authorizer recording
    /// of that user at or before it that let the caller through (the token the user's client was
    /// sending then), or `nil` when there is none. A refused recording is skipped: API Gateway
    /// invokes a function only for a caller its authorizer let through, so a refusal in between
    /// was another token of the user's (an old one, another device's), not this event's.
    package func entry(for user: String, admittedAtOrBefore epochMilliseconds: Int64) -> Entry? {
        users[user]?.last { $0.epochMilliseconds <= epochMilliseconds && $0.refusal == nil }
    }

    /// A user's entry by its authorizer request id.
    package func entry(for user: String, requestID: String) -> Entry? {
        users[user]?.first { $0.requestID == requestID }
    }

    /// The file's JSON.
    package var json: JSONValue {
        var object = JSONObject()
        for user in users.keys.sorted() {
            object[user] = .array(
                (users[user] ?? []).map { entry in
                    var item: JSONObject = [
                        "at": .string(CivilTime.iso8601(milliseconds: entry.epochMilliseconds)),
                        "epochMillis": .number(String(entry.epochMilliseconds)),
                        "requestId": .string(entry.requestID), "claims": .object(entry.claims),
                    ]
                    if let refusal = entry.refusal { item["refusal"] = .string(refusal) }
                    return .object(item)
                })
        }
        return ["v": 1, "users": .object(object)]
    }

    /// Reads the file's JSON.
    /// - Throws: ``EmulatorError`` naming the member that is wrong.
    package init(json: JSONValue) throws(EmulatorError) {
        guard json["v"]?.int == 1 else { throw EmulatorError("\"v\" must be 1 (the only version there is)") }
        guard let users = json["users"]?.object else { throw EmulatorError("\"users\" must be an object") }
        for (user, list) in users.pairs {
            guard let items = list.array else { throw EmulatorError("users.\(user) must be an array") }
            var entries: [Entry] = []
            for (index, item) in items.enumerated() {
                let place = "users.\(user)[\(index)]"
                guard let millis = item["epochMillis"]?.double, millis.isFinite, abs(millis) < 1e15 else {
                    throw EmulatorError("\(place).epochMillis must be milliseconds since 1970")
                }
                guard let claims = item["claims"]?.object else {
                    throw EmulatorError("\(place).claims must be an object")
                }
                guard claims["exp"]?.double != nil else { throw EmulatorError("\(place).claims.exp must be a number") }
                entries.append(
                    Entry(
                        epochMilliseconds: Int64(millis), requestID: item["requestId"]?.string ?? "",
                        claims: claims, refusal: item["refusal"]?.string))
            }
            self.users[user] = entries.sorted { $0.epochMilliseconds < $1.epochMilliseconds }
        }
    }

    /// Writes `.inkra-tokens.json` into a folder.
    /// - Throws: ``EmulatorError`` naming the file.
    package func write(into folder: URL) throws(EmulatorError) {
        try Replayer.write(json.prettyJSONString + "\n", to: folder.appendingPathComponent(Self.fileName))
    }

    /// The `.inkra-tokens.json` of the folders replayed, merged: for each path, its folder (a file's own
    /// folder for a file) and that folder's parent, where `import --with-tokens OUT` writes it
    /// beside `OUT/<function>/`. `nil` when none has one.
    /// - Throws: ``EmulatorError`` naming a file that cannot be read or is malformed.
    package static func read(for paths: [URL]) throws(EmulatorError) -> RecordedTokens? {
        var merged: RecordedTokens?
        var seen = Set<String>()
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else { continue }
            let folder = isDirectory.boolValue ? path : path.deletingLastPathComponent()
            for candidate in [folder, folder.deletingLastPathComponent()] {
                let url = candidate.appendingPathComponent(fileName)
                guard seen.insert(url.standardizedFileURL.path).inserted, let tokens = try read(url) else { continue }
                if var existing = merged {
                    for (user, entries) in tokens.users {
                        existing.users[user] = ((existing.users[user] ?? []) + entries).sorted {
                            $0.epochMilliseconds < $1.epochMilliseconds
                        }
                    }
                    merged = existing
                } else {
                    merged = tokens
                }
            }
        }
        return merged
    }

    private static func read(_ url: URL) throws(EmulatorError) -> RecordedTokens? {
        guard let json = try Replayer.readJSON(url, named: url.path) else { return nil }
        do {
            return try RecordedTokens(json: json)
        } catch {
            throw EmulatorError("\(url.path): \(error.message)")
        }
    }
}
