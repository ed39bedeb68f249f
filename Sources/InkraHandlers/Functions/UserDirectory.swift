/// Where the app's user accounts live (the Cognito user pool): `deleteAccount` deletes the
/// caller's account there once their usage is erased.
public protocol UserDirectory: Sendable {
    /// Deletes the user whose `sub` is `userID`.
    /// - Returns: `true` when a user was deleted, `false` when there was none (already deleted),
    ///   so a repeated deletion succeeds.
    /// - Throws: when the directory could not be reached or refused the call.
    func deleteUser(_ userID: String) async throws -> Bool
}
