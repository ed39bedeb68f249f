import Foundation
import InkraJSON
import InkraTime

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

    /// The value read as `T`, or an error saying what was `expected` and what was found.
    private func typed<T>(_ read: T?, _ expected: String) throws(PoolStateError) -> T {
        guard let read else { throw failure("expected \(expected), found \(value.typeName)") }
        return read
    }

    func required(_ name: String) throws(PoolStateError) -> PoolStateReader {
        _ = try typed(value.object, "an object")
        guard let member = member(name) else { throw failure("no \"\(name)\"") }
        return member
    }

    func string() throws(PoolStateError) -> String { try typed(value.string, "a string") }
    func int() throws(PoolStateError) -> Int { try typed(value.int, "an integer") }
    func bool() throws(PoolStateError) -> Bool { try typed(value.bool, "true or false") }

    func date() throws(PoolStateError) -> Timestamp {
        Timestamp(timeIntervalSince1970: try typed(value.double, "a date") + referenceDateOffset)
    }

    func elements() throws(PoolStateError) -> [PoolStateReader] {
        try typed(value.array, "an array").enumerated().map { PoolStateReader($1, path: "\(path)[\($0)]") }
    }

    func members() throws(PoolStateError) -> [(key: String, value: PoolStateReader)] {
        try typed(value.object, "an object").pairs.map {
            ($0.key, PoolStateReader($0.value, path: "\(path).\($0.key)"))
        }
    }

    func strings() throws(PoolStateError) -> [String] {
        try elements().map { (element) throws(PoolStateError) in try element.string() }
    }

    func raw<Value: RawRepresentable<String>>(_: Value.Type) throws(PoolStateError) -> Value {
        let text = try string()
        guard let value = Value(rawValue: text) else { throw failure("unknown value \"\(text)\"") }
        return value
    }
}

extension JSONValue {
    fileprivate static func date(_ date: Timestamp) -> JSONValue {
        let seconds = date.timeIntervalSince1970 - referenceDateOffset
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
            ("poolID", .string(poolID)), ("users", Self.entries(users, \.json)),
            ("refreshTokens", Self.entries(refreshTokens, \.json)),
            ("accessTokens", Self.entries(accessTokens, \.json)),
            ("revoked", .array(revoked.map(JSONValue.string))), ("unrevoked", .array(unrevoked.map(JSONValue.string))),
        ])
    }

    /// The change from what ``json`` wrote.
    /// - Throws: ``PoolStateError`` naming the first member that is not as written.
    package init(json: JSONValue) throws(PoolStateError) {
        let reader = PoolStateReader(json)
        poolID = try reader.required("poolID").string()
        users = try Self.entries(reader.member("users"), PoolUser.init)
        refreshTokens = try Self.entries(reader.member("refreshTokens"), UserPoolSnapshot.IssuedToken.init)
        accessTokens = try Self.entries(reader.member("accessTokens"), UserPoolSnapshot.IssuedToken.init)
        revoked = try reader.member("revoked")?.strings() ?? []
        unrevoked = try reader.member("unrevoked")?.strings() ?? []
    }

    private static func entries<Value>(_ entries: [Entry<Value>], _ json: (Value) -> JSONValue) -> JSONValue {
        .array(entries.map { object([("key", .string($0.key)), ("value", $0.value.map(json))]) })
    }

    private static func entries<Value>(
        _ reader: PoolStateReader?, _ value: (PoolStateReader) throws(PoolStateError) -> Value
    ) throws(PoolStateError) -> [Entry<Value>] {
        var result: [Entry<Value>] = []
        for entry in try reader?.elements() ?? [] {
            let decoded = try entry.member("value").map { (reader) throws(PoolStateError) in try value(reader) }
            result.append(Entry(key: try entry.required("key").string(), value: decoded))
        }
        return result
    }
}

/// The state file writes an instant as seconds since 2001-01-01T00:00:00Z (Foundation's reference
/// date, which it used first); this is that date in Unix time.
private let referenceDateOffset: Double = 978_307_200
