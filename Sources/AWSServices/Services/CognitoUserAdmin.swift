import HTTPText
import InkraJSON
import InkraTime

/// An administrator's calls on one Cognito user pool (`AWSCognitoIdentityProviderService.*`),
/// signed with the function's or operator's credentials: what account deletion needs.
package struct CognitoUserAdmin: RequestBound {
    /// The pool, `us-east-1_AbCdEf123`.
    package let userPoolID: String
    private(set) var service: AWSJSONService

    /// The pool `userPoolID` at `AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER`, else
    /// `AWS_ENDPOINT_URL`, else Cognito's endpoint in the pool's region (its id's prefix).
    /// Calls are tried again as ``AWSJSONService/Retries`` says (throttling, a 5xx, a dropped
    /// connection), within the deadline of the request it is bound to (``bound(to:)``).
    /// - Throws: ``AWSServiceError/invalidConfiguration`` naming a missing variable.
    package init(
        userPoolID: String, aws: AWSSettings, transport: any DynamoDBTransport = HTTPClientTransport(),
        retries: AWSJSONService.Retries = AWSJSONService.Retries(), now: @escaping @Sendable () -> Timestamp
    ) throws(AWSServiceError) {
        let poolRegion = userPoolID.contains("_") ? userPoolID.split(separator: "_").first.map(String.init) : nil
        self.userPoolID = userPoolID
        service = try AWSJSONService.cognitoIdentityProvider(
            aws, region: poolRegion, transport: transport, retries: retries, now: now)
    }

    /// This client, making its calls for the request of `scope`: within its deadline.
    package func bound(to scope: RequestScope) -> CognitoUserAdmin {
        var admin = self
        admin.service = service.bound(to: scope)
        return admin
    }

    /// The endpoint calls go to.
    package var endpoint: HTTPURL { service.endpoint }

    /// Deletes a user (`AdminDeleteUser`). `username` may be the user's `sub`, which Cognito accepts
    /// in a pool where email is the user name attribute. Throttling, a 5xx or a dropped connection
    /// is tried again with backoff; each attempt's timeout, and the retries, are cut to what remains
    /// of the bound request's deadline. A retry after an answer lost on its way finds no user,
    /// and so succeeds as a deletion already done.
    /// - Returns: `true` when a user was deleted, `false` when the pool has no such user
    ///   (`UserNotFoundException`), so a repeated deletion succeeds.
    /// - Throws: ``AWSServiceError`` for any other answer (the pool missing, access denied,
    ///   throttling) or when the endpoint cannot be reached.
    package func deleteUser(_ username: String, timeout: Double = 3) async throws -> Bool {
        do {
            _ = try await service.call(
                "AdminDeleteUser", ["UserPoolId": .string(userPoolID), "Username": .string(username)],
                timeout: timeout)
            return true
        } catch let error as AWSServiceError where error.type == "UserNotFoundException" {
            return false
        }
    }
}
