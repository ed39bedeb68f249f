import Foundation
import Logging
import Synchronization

extension UserPool {
    /// `AdminCreateUser`: a user in `FORCE_CHANGE_PASSWORD` with a temporary password (none: the
    /// user cannot sign in until `AdminSetUserPassword`), email verified when the attributes say so.
    /// - Throws: ``CognitoError``: a user name that is not an email, an attribute outside the
    ///   schema, a weak temporary password, an email already in use.
    package func adminCreateUser(username: String, attributes: [(String, String)], temporaryPassword: String?)
        throws(CognitoError) -> PoolUser
    {
        try createUser(username, attributes, password: temporaryPassword, status: .forceChangePassword)
    }

    /// `AdminSetUserPassword`: permanent (`CONFIRMED`) or temporary (`FORCE_CHANGE_PASSWORD`).
    /// - Throws: ``CognitoError``: an unknown user, a weak password.
    package func adminSetUserPassword(username: String, password: String, permanent: Bool) throws(CognitoError) {
        if let violation = settings.passwordPolicy.violation(of: password) { throw .invalidPassword(violation) }
        let known = try user(username)
        let (hash, srp) = passwordRecord(password, username: known.username)
        try updateUser(username) { user in
            (user.password, user.srp) = (hash, srp)
            user.status = permanent ? .confirmed : .forceChangePassword
        }
    }

    /// `AdminGetUser`.
    /// - Throws: ``CognitoError/userNotFound``.
    package func adminGetUser(username: String) throws(CognitoError) -> PoolUser { try user(username) }

    /// `AdminUpdateUserAttributes`: the attributes change now; tokens carry them from the next
    /// sign-in or refresh.
    /// - Throws: ``CognitoError``: an unknown user, an attribute outside the schema, an email in use.
    package func adminUpdateUserAttributes(username: String, attributes: [(String, String)]) throws(CognitoError) {
        var checked: [(String, String)] = []
        for (name, value) in attributes {
            guard name != "sub" else {
                throw CognitoError.invalidParameter("Cannot modify an immutable attribute: sub")
            }
            checked.append((name, try checkedAttribute(name, value)))
        }
        try journaled { (state) throws(CognitoError) in
            guard let index = state.userIndex(username) else { throw CognitoError.userNotFound }
            for (name, value) in checked where name == "email" {
                if let other = state.userIndex(value), other != index {
                    throw CognitoError("AliasExistsException", "An account with the given email already exists.")
                }
            }
            for (name, value) in checked { state.snapshot.users[index].attributes[name] = value }
            state.snapshot.users[index].modified = now()
        }
    }

    /// `AdminAddUserToGroup`.
    /// - Throws: ``CognitoError``: an unknown user or group.
    package func adminAddUserToGroup(username: String, group: String) throws(CognitoError) {
        guard settings.groups.contains(where: { $0.name == group }) else { throw CognitoError.groupNotFound }
        try updateUser(username) { user in
            if !user.groups.contains(group) { user.groups.append(group) }
        }
    }

    /// `AdminRemoveUserFromGroup`.
    /// - Throws: ``CognitoError``: an unknown user or group.
    package func adminRemoveUserFromGroup(username: String, group: String) throws(CognitoError) {
        guard settings.groups.contains(where: { $0.name == group }) else { throw CognitoError.groupNotFound }
        try updateUser(username) { user in user.groups.removeAll { $0 == group } }
    }

    /// `AdminDeleteUser`: the user and every token of theirs.
    /// - Throws: ``CognitoError/userNotFound``.
    package func adminDeleteUser(username: String) throws(CognitoError) {
        let known = try user(username)
        try journaled { state in
            Self.revokeTokens(of: known.username, in: &state)
            state.snapshot.users.removeAll { $0.username == known.username }
        }
    }

    /// `ListUsers`, optionally filtered as Cognito's `Filter` allows (`name = "value"` or
    /// `name ^= "prefix"` on `username`, `email`, `sub`, `status` or `cognito:user_status`).
    /// - Throws: ``CognitoError``: a filter of another form.
    package func listUsers(filter: String?) throws(CognitoError) -> [PoolUser] {
        let users = state.withLock { $0.snapshot.users }
        guard let filter, !filter.trimmingCharacters(in: .whitespaces).isEmpty else { return users }
        let prefix = filter.contains("^=")
        let parts = filter.components(separatedBy: prefix ? "^=" : "=")
        guard parts.count == 2 else { throw CognitoError.invalidParameter("Error while parsing filter.") }
        let name = parts[0].trimmingCharacters(in: .whitespaces)
        let value = parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
            in: CharacterSet(charactersIn: "\""))
        let read: (PoolUser) -> String?
        switch name {
        case "username": read = { $0.username }
        case "sub": read = { $0.sub }
        case "status", "cognito:user_status": read = { $0.status.rawValue }
        case "email", "given_name", "family_name", "name": read = { $0.attributes[name] }
        default: throw CognitoError.invalidParameter("Invalid search attribute: \(name.prefix(64))")
        }
        return users.filter { user in
            guard let field = read(user) else { return false }
            return prefix ? field.hasPrefix(value) : field == value
        }
    }

    /// `ListUsersInGroup`.
    /// - Throws: ``CognitoError/groupNotFound``.
    package func listUsersInGroup(_ group: String) throws(CognitoError) -> [PoolUser] {
        guard settings.groups.contains(where: { $0.name == group }) else { throw CognitoError.groupNotFound }
        return state.withLock { $0.snapshot.users.filter { $0.groups.contains(group) } }
    }
}
