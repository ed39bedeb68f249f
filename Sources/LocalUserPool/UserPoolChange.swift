import Foundation
import Logging
import Synchronization

/// Where a pool records each change before it answers it: `serve --state`'s write-ahead log, the
/// one the table's writes go to.
package protocol UserPoolJournal: Sendable {
    /// Records a change durably, or throws; a change that cannot be recorded is not made.
    func record(_ change: UserPoolChange) throws
}

/// One change of a pool, as after-images: the users, issued tokens and revocations it changed,
/// each whole (a removed one without its value). Applying a change twice is harmless.
package struct UserPoolChange: Sendable, Hashable, Codable {
    /// A changed entry under its key; `value` is absent for a removed one.
    struct Entry<Value: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
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
    /// Token hashes revoked, and ones no longer listed as revoked.
    var revoked: [String] = []
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

extension UserPool {
    /// Changes the pool under its lock, and records what changed in the journal before the lock is
    /// released (so before the change is answered); when the journal cannot record it, the change
    /// is undone and the call fails with `InternalErrorException`.
    /// - Throws: what `body` throws, or ``CognitoError`` when the journal fails.
    func journaled<T>(_ body: (inout PoolState) throws(CognitoError) -> T) throws(CognitoError) -> T {
        try state.withLock { (state) throws(CognitoError) -> T in
            let before = state.snapshot
            let result: Result<T, CognitoError>
            do throws(CognitoError) {
                result = .success(try body(&state))
            } catch {
                result = .failure(error)
            }
            guard let journal else { return try result.get() }
            let change = UserPoolChange(from: before, to: state.snapshot)
            guard !change.isEmpty else { return try result.get() }
            do {
                try journal.record(change)
            } catch {
                state.snapshot = before
                logger.error("the user pool's journal cannot record a change", metadata: ["error": "\(error)"])
                throw CognitoError("InternalErrorException", "The change could not be stored.", status: 500)
            }
            return try result.get()
        }
    }
}
