import InkraJSON
import InkraTime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An administrator's calls on one Cognito user pool (`AWSCognitoIdentityProviderService.*`),
/// signed with the function's or operator's credentials: what account deletion needs.
package struct CognitoUserAdmin: Sendable {
    /// The pool, `us-east-1_AbCdEf123`.
    package let userPoolID: String
    let service: AWSJSONService

    /// The pool `userPoolID` at `AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER`, else
    /// `AWS_ENDPOINT_URL`, else Cognito's endpoint in the pool's region (its id's prefix).
    /// - Throws: ``DynamoDBConfigurationError`` naming a missing variable.
    package init(
        userPoolID: String, aws: AWSSettings, transport: any DynamoDBTransport = HTTPClientTransport(),
        now: @escaping @Sendable () -> Date
    ) throws(DynamoDBConfigurationError) {
        let poolRegion = userPoolID.contains("_") ? userPoolID.split(separator: "_").first.map(String.init) : nil
        self.userPoolID = userPoolID
        service = try AWSJSONService.cognitoIdentityProvider(aws, region: poolRegion, transport: transport, now: now)
    }

    /// The endpoint calls go to.
    package var endpoint: URL { service.endpoint }

    /// Deletes a user (`AdminDeleteUser`). `username` may be the user's `sub`, which Cognito accepts
    /// in a pool where email is the user name attribute. The call's timeout is cut to what remains
    /// of the request's `RequestDeadline`.
    /// - Returns: `true` when a user was deleted, `false` when the pool has no such user
    ///   (`UserNotFoundException`), so a repeated deletion succeeds.
    /// - Throws: ``AWSServiceError`` for any other answer (the pool missing, access denied,
    ///   throttling) or when the endpoint cannot be reached.
    package func deleteUser(_ username: String, timeout: TimeInterval = 5) async throws -> Bool {
        do {
            _ = try await service.call(
                "AdminDeleteUser", ["UserPoolId": .string(userPoolID), "Username": .string(username)],
                timeout: Self.seconds(RequestDeadline.bounded(.milliseconds(Int64(timeout * 1000)))))
            return true
        } catch let error as AWSServiceError where error.type == "UserNotFoundException" {
            return false
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
