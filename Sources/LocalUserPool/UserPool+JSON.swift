import Foundation
import InkraJSON

// The pool's state as `--state` keeps it, in the package's one JSON codec (InkraJSON). The shapes
// are the ones the state file has always had: members by field name, a missing optional left out,
// dates as seconds since 2001-01-01 (what Foundation's encoder wrote by default), so files written
// by earlier versions read the same.

/// Why a part of the pool's state is not what the pool wrote, naming where (`.users[0].status`).
package struct PoolStateError: Error, CustomStringConvertible {
    /// Where, as a path from the value read (`.users[0].status`; empty at the top).
    package var path: String
    /// What is wrong there.
    package var reason: String

    package var description: String { "at \(path.isEmpty ? "top level" : path): \(reason)" }

    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}

/// A JSON value being read, with its path for errors.
struct PoolStateReader {
    let value: JSONValue
    let path: String

    init(_ value: JSONValue, path: String = "") {
        self.value = value
        self.path = path
    }

    func failure(_ reason: String) -> PoolStateError { PoolStateError(path: path, reason: reason) }

    /// The member `name` (absent and `null` are both "absent").
    func member(_ name: String) -> PoolStateReader? {
        guard let member = value[name], member != .null else { return nil }
        return PoolStateReader(member, path: "\(path).\(name)")
    }

    func required(_ name: String) throws(PoolStateError) -> PoolStateReader {
        guard value.object != nil else { throw failure("expected an object, found \(value.typeName)") }
        guard let member = member(name) else { throw failure("no \"\(name)\"") }
        return member
    }

    func string() throws(PoolStateError) -> String {
        guard let text = value.string else { throw failure("expected a string, found \(value.typeName)") }
        return text
    }

    func int() throws(PoolStateError) -> Int {
        guard let number = value.int else { throw failure("expected an integer, found \(value.typeName)") }
        return number
    }

    func bool() throws(PoolStateError) -> Bool {
        guard let flag = value.bool else { throw failure("expected true or false, found \(value.typeName)") }
        return flag
    }

    func date() throws(PoolStateError) -> Date {
        guard let seconds = value.double else { throw failure("expected a date, found \(value.typeName)") }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    func elements() throws(PoolStateError) -> [PoolStateReader] {
        guard let array = value.array else { throw failure("expected an array, found \(value.typeName)") }
        return array.enumerated().map { PoolStateReader($1, path: "\(path)[\($0)]") }
    }

    func members() throws(PoolStateError) -> [(key: String, value: PoolStateReader)] {
        guard let object = value.object else { throw failure("expected an object, found \(value.typeName)") }
        return object.pairs.map { ($0.key, PoolStateReader($0.value, path: "\(path).\($0.key)")) }
    }

    func strings() throws(PoolStateError) -> [String] {
        var result: [String] = []
        for element in try elements() { result.append(try element.string()) }
        return result
    }

    func raw<Value: RawRepresentable<String>>(_: Value.Type) throws(PoolStateError) -> Value {
        let text = try string()
        guard let value = Value(rawValue: text) else { throw failure("unknown value \"\(text)\"") }
        return value
    }
}

extension JSONValue {
    fileprivate static func date(_ date: Date) -> JSONValue {
        let seconds = date.timeIntervalSinceReferenceDate
        let whole = seconds.rounded()
        return .number(whole == seconds && abs(whole) < 9.0e15 ? String(Int(whole)) : "\(seconds)")
    }
}

/// Builds an object leaving out the members whose value is `nil`, with members in sorted order.
private func object(_ members: [(String, JSONValue?)]) -> JSONValue {
    .object(JSONObject(members.compactMap { name, value in value.map { (name, $0) } }.sorted { $0.0 < $1.0 }))
}

extension PoolUser {
    var json: JSONValue {
        object([
            ("username", .string(username)), ("sub", .string(sub)),
            (
                "attributes",
                .object(JSONObject(attributes.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
            ),
            ("status", .string(status.rawValue)), ("enabled", .bool(enabled)),
            ("created", .date(created)), ("modified", .date(modified)),
            ("groups", .array(groups.map(JSONValue.string))),
            (
                "password",
                password.map {
                    object([("salt", .string($0.salt)), ("hash", .string($0.hash)), ("rounds", .number($0.rounds))])
                }
            ),
            ("srp", srp.map { object([("salt", .string($0.salt)), ("verifier", .string($0.verifier))]) }),
            (
                "pendingCode",
                pendingCode.map {
                    object([
                        ("code", .string($0.code)), ("purpose", .string($0.purpose.rawValue)),
                        ("expires", .date($0.expires)),
                    ])
                }
            ),
        ])
    }

    init(_ reader: PoolStateReader) throws(PoolStateError) {
        username = try reader.required("username").string()
        sub = try reader.required("sub").string()
        attributes = [:]
        for (name, value) in try reader.required("attributes").members() { attributes[name] = try value.string() }
        status = try reader.required("status").raw(Status.self)
        enabled = try reader.member("enabled")?.bool() ?? true
        created = try reader.required("created").date()
        modified = try reader.required("modified").date()
        groups = try reader.member("groups")?.strings() ?? []
        if let hash = reader.member("password") {
            password = PasswordHash(
                salt: try hash.required("salt").string(), hash: try hash.required("hash").string(),
                rounds: try hash.required("rounds").int())
        }
        if let srp = reader.member("srp") {
            self.srp = SRPVerifier(
                salt: try srp.required("salt").string(), verifier: try srp.required("verifier").string())
        }
        if let code = reader.member("pendingCode") {
            pendingCode = PendingCode(
                code: try code.required("code").string(),
                purpose: try code.required("purpose").raw(PendingCode.Purpose.self),
                expires: try code.required("expires").date())
        }
    }
}

extension UserPoolSnapshot.IssuedToken {
    var json: JSONValue {
        object([
            ("username", .string(username)), ("clientID", .string(clientID)), ("expires", .date(expires)),
            ("authTime", .date(authTime)), ("originJti", .string(originJti)),
        ])
    }

    init(_ reader: PoolStateReader) throws(PoolStateError) {
        username = try reader.required("username").string()
        clientID = try reader.required("clientID").string()
        expires = try reader.required("expires").date()
        authTime = try reader.required("authTime").date()
        originJti = try reader.required("originJti").string()
    }

    static func table(_ tokens: [String: Self]) -> JSONValue {
        .object(JSONObject(tokens.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) }))
    }

    static func table(_ reader: PoolStateReader?) throws(PoolStateError) -> [String: Self] {
        var tokens: [String: Self] = [:]
        for (hash, token) in try reader?.members() ?? [] { tokens[hash] = try Self(token) }
        return tokens
    }
}

extension UserPoolSnapshot {
    /// The pool as the state file keeps it.
    package var json: JSONValue {
        object([
            ("poolID", .string(poolID)), ("users", .array(users.map(\.json))),
            ("refreshTokens", IssuedToken.table(refreshTokens)), ("accessTokens", IssuedToken.table(accessTokens)),
            ("revokedTokens", .array(revokedTokens.sorted().map(JSONValue.string))),
        ])
    }

    /// The pool from what ``json`` wrote.
    /// - Throws: ``PoolStateError`` naming the first member that is not as written.
    package init(json: JSONValue) throws(PoolStateError) {
        let reader = PoolStateReader(json)
        self.init(poolID: try reader.required("poolID").string())
        for user in try reader.member("users")?.elements() ?? [] { users.append(try PoolUser(user)) }
        refreshTokens = try IssuedToken.table(reader.member("refreshTokens"))
        accessTokens = try IssuedToken.table(reader.member("accessTokens"))
        revokedTokens = Set(try reader.member("revokedTokens")?.strings() ?? [])
    }
}

extension UserPoolChange {
    /// The change as a journal line keeps it.
    package var json: JSONValue {
        object([
            ("poolID", .string(poolID)),
            ("users", .array(users.map { object([("key", .string($0.key)), ("value", $0.value?.json)]) })),
            (
                "refreshTokens",
                .array(refreshTokens.map { object([("key", .string($0.key)), ("value", $0.value?.json)]) })
            ),
            (
                "accessTokens",
                .array(accessTokens.map { object([("key", .string($0.key)), ("value", $0.value?.json)]) })
            ),
            ("revoked", .array(revoked.map(JSONValue.string))), ("unrevoked", .array(unrevoked.map(JSONValue.string))),
        ])
    }

    /// The change from what ``json`` wrote.
    /// - Throws: ``PoolStateError`` naming the first member that is not as written.
    package init(json: JSONValue) throws(PoolStateError) {
        let reader = PoolStateReader(json)
        poolID = try reader.required("poolID").string()
        for entry in try reader.member("users")?.elements() ?? [] {
            users.append(
                Entry(key: try entry.required("key").string(), value: try entry.member("value").map(PoolUser.init)))
        }
        refreshTokens = try Self.tokens(reader.member("refreshTokens"))
        accessTokens = try Self.tokens(reader.member("accessTokens"))
        revoked = try reader.member("revoked")?.strings() ?? []
        unrevoked = try reader.member("unrevoked")?.strings() ?? []
    }

    private static func tokens(_ reader: PoolStateReader?) throws(PoolStateError) -> [Entry<
        UserPoolSnapshot.IssuedToken
    >] {
        var result: [Entry<UserPoolSnapshot.IssuedToken>] = []
        for entry in try reader?.elements() ?? [] {
            let value = try entry.member("value").map(UserPoolSnapshot.IssuedToken.init)
            result.append(Entry(key: try entry.required("key").string(), value: value))
        }
        return result
    }
}
