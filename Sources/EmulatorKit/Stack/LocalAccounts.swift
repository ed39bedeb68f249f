import InkraHandlers
import LocalUserPool
import Synchronization

/// The accounts `deleteAccount` deletes in the emulator: those of `serve`'s local user pool, once
/// it has one (`--cognito-port`). Without a pool there is no account to delete, only usage.
package final class LocalAccounts: UserDirectory {
    private let attached = Mutex<UserPool?>(nil)

    /// No pool yet.
    package init() {}

    /// The pool, once `serve` has attached one.
    package var pool: UserPool? { attached.withLock { $0 } }

    /// Deletes accounts from `pool` from now on.
    package func attach(_ pool: UserPool) {
        attached.withLock { $0 = pool }
    }

    /// Deletes the user whose `sub` is `userID` (the local pool's user name is the `sub`).
    /// - Returns: `false` without a pool or without such a user.
    package func deleteUser(_ userID: String) async throws -> Bool {
        guard let pool else { return false }
        let failure: CognitoError
        do {
            try pool.adminDeleteUser(username: userID)
            return true
        } catch {
            failure = error
        }
        guard failure.type == "UserNotFoundException" else { throw failure }
        return false
    }
}
