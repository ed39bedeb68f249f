import Foundation

/// One change of a pool, as after-images: the users, issued tokens and revocations it changed,
/// each whole (a removed one without its value). Applying a change twice is harmless.
package struct UserPoolChange: Sendable, Hashable {
    /// A changed entry under its key; `value` is absent for a removed one.
    struct Entry<Value: Sendable & Hashable>: Sendable, Hashable {
        var key: String
        var value: Value?
    }

    /// The pool the change belongs to.
    package var poolID: String
    /// Users by user name.
    var users: [Entry<PoolUser>] = []
    /// Refresh tokens by hash.
    var refreshTokens: [Entry<UserPoolSnapshot.IssuedToken>] = []
    /// Access tokens by hash.
    var accessTokens: [Entry<UserPoolSnapshot.IssuedToken>] = []
    /// Token hashes revoked.
    var revoked: [String] = []
    /// Token hashes no longer listed as revoked.
    var unrevoked: [String] = []

    /// Whether nothing the pool keeps changed.
    package var isEmpty: Bool {
        users.isEmpty && refreshTokens.isEmpty && accessTokens.isEmpty && revoked.isEmpty && unrevoked.isEmpty
    }

    /// What changed from `before` to `after`.
    init(from before: UserPoolSnapshot, to after: UserPoolSnapshot) {
        poolID = after.poolID
        var old = Dictionary(before.users.map { ($0.username, $0) }, uniquingKeysWith: { $1 })
        for user in after.users {
            if old.removeValue(forKey: user.username) != user { users.append(Entry(key: user.username, value: user)) }
        }
        users += old.keys.sorted().map { Entry(key: $0, value: nil) }
        refreshTokens = Self.changes(from: before.refreshTokens, to: after.refreshTokens)
        accessTokens = Self.changes(from: before.accessTokens, to: after.accessTokens)
        revoked = after.revokedTokens.subtracting(before.revokedTokens).sorted()
        unrevoked = before.revokedTokens.subtracting(after.revokedTokens).sorted()
    }

    private static func changes<Value>(from before: [String: Value], to after: [String: Value]) -> [Entry<Value>] {
        var entries = after.filter { before[$0.key] != $0.value }.map { Entry(key: $0.key, value: $0.value) }
        entries += before.keys.filter { after[$0] == nil }.map { Entry(key: $0, value: nil) }
        return entries.sorted { $0.key < $1.key }
    }
}

extension UserPoolSnapshot {
    /// Applies a change: a change of another pool replaces this one with that pool, as a save of
    /// that pool would.
    package mutating func apply(_ change: UserPoolChange) {
        if change.poolID != poolID { self = UserPoolSnapshot(poolID: change.poolID) }
        for entry in change.users {
            let index = users.firstIndex { $0.username == entry.key }
            switch (index, entry.value) {
            case (let index?, let user?): users[index] = user
            case (nil, let user?): users.append(user)
            case (let index?, nil): users.remove(at: index)
            case (nil, nil): break
            }
        }
        for entry in change.refreshTokens { refreshTokens[entry.key] = entry.value }
        for entry in change.accessTokens { accessTokens[entry.key] = entry.value }
        revokedTokens.formUnion(change.revoked)
        revokedTokens.subtract(change.unrevoked)
    }
}
