import Logging
import Synchronization

/// Where a pool records each change before it answers it: `serve --state`'s write-ahead log, the
/// one the table's writes go to.
package protocol UserPoolJournal: Sendable {
    /// Records a change durably, or throws; a change that cannot be recorded is not made.
    func record(_ change: UserPoolChange) throws
}

extension UserPool {
    /// Changes the pool under its lock, and records what changed in the journal before the lock is
    /// released (so before the change is answered); when the journal cannot record it, the change
    /// is undone and the call fails with `InternalErrorException`.
    /// - Throws: what `body` throws, or ``CognitoError`` when the journal fails.
    func journaled<T>(_ body: (inout PoolState) throws(CognitoError) -> T) throws(CognitoError) -> T {
        try state.withLock { (state) throws(CognitoError) -> T in
            // Without a journal, no copy of the pool to compare with.
            guard let journal else { return try body(&state) }
            let before = state.snapshot
            let result: Result<T, CognitoError>
            do throws(CognitoError) {
                result = .success(try body(&state))
            } catch {
                result = .failure(error)
            }
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
