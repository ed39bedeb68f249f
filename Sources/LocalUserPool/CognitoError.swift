import Foundation

/// An error as the Cognito Identity Provider API reports it: `{"__type": "<type>", "message": …}`
/// with an HTTP status (400 for the client's errors, 500 for `InternalErrorException`).
package struct CognitoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error type, such as `NotAuthorizedException`.
    package var type: String
    /// The message, in Cognito's words.
    package var message: String
    /// The HTTP status.
    package var status: Int

    /// Creates an error.
    package init(_ type: String, _ message: String, status: Int = 400) {
        self.type = type
        self.message = message
        self.status = status
    }

    package var description: String { "\(type): \(message)" }

    /// "Incorrect username or password." — a wrong password, or an unknown user of a client that
    /// prevents user existence errors.
    static let badCredentials = CognitoError("NotAuthorizedException", "Incorrect username or password.")
    static let userNotFound = CognitoError("UserNotFoundException", "User does not exist.")
    static let notConfirmed = CognitoError("UserNotConfirmedException", "User is not confirmed.")
    static let usernameExists = CognitoError(
        "UsernameExistsException", "An account with the given email already exists.")
    static let codeMismatch = CognitoError(
        "CodeMismatchException", "Invalid verification code provided, please try again.")
    static let expiredCode = CognitoError("ExpiredCodeException", "Invalid code provided, please request a code again.")
    static let invalidAccessToken = CognitoError("NotAuthorizedException", "Invalid Access Token")
    static let revokedAccessToken = CognitoError("NotAuthorizedException", "Access Token has been revoked")
    static let invalidRefreshToken = CognitoError("NotAuthorizedException", "Invalid Refresh Token")
    static let revokedRefreshToken = CognitoError("NotAuthorizedException", "Refresh Token has been revoked")
    static let groupNotFound = CognitoError("ResourceNotFoundException", "Group not found.")

    static func invalidParameter(_ message: String) -> CognitoError {
        CognitoError("InvalidParameterException", message)
    }

    static func invalidPassword(_ message: String) -> CognitoError {
        CognitoError("InvalidPasswordException", message)
    }
}
