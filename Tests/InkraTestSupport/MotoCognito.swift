import AWSServices
import Foundation
import HTTPText
import InkraJSON
import InkraTime
import OutboundHTTP

/// A Cognito user pool in moto_server (``MotoEndpoint``), shaped as template.yaml deploys it (email
/// as the user name), for the tests of account deletion.
package struct MotoCognito: Sendable {
    /// The pool's id.
    package let userPoolID: String
    /// moto's endpoint.
    package let endpoint: HTTPURL
    let service: AWSJSONService

    /// The environment that points a runtime or the emulator's admin tools at moto's Cognito.
    package var environment: [String: String] {
        [
            "AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER": endpoint.absoluteString, "AWS_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
        ]
    }

    /// Its own connections: the test process's shared client is busy with the DynamoDB suites,
    /// which queue on moto with a minute's patience.
    static let transport = HTTPClientTransport(client: OutboundHTTPClient())
    /// moto answers one request at a time while the whole test run queues on it.
    package static let patience: TimeInterval = Patience.seconds

    /// A client of the pool for the code under test, on the same private connections.
    package func admin() throws -> CognitoUserAdmin {
        try CognitoUserAdmin(
            userPoolID: userPoolID, aws: AWSSettings(environment: environment), transport: Self.transport,
            now: { Timestamp.now })
    }

    /// A new pool in moto.
    package static func pool() async throws -> MotoCognito {
        let endpoint = try await MotoEndpoint.url()
        var environment = ["AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER": endpoint.absoluteString]
        environment["AWS_REGION"] = "us-east-1"
        environment["AWS_ACCESS_KEY_ID"] = "testing"
        environment["AWS_SECRET_ACCESS_KEY"] = "testing"
        let service = try AWSJSONService.cognitoIdentityProvider(
            AWSSettings(environment: environment), transport: transport, now: { Timestamp.now })
        let created = try await service.call(
            "CreateUserPool",
            ["PoolName": .string("inkra-test-\(UUID().uuidString.prefix(8))"), "UsernameAttributes": ["email"]],
            timeout: patience)
        let id = try (created["UserPool"]?["Id"]?.string).unwrapped("CreateUserPool answered no UserPool.Id")
        return MotoCognito(userPoolID: id, endpoint: endpoint, service: service)
    }

    /// Creates a user and returns their `sub`.
    package func createUser(email: String) async throws -> String {
        let answer = try await service.call(
            "AdminCreateUser",
            [
                "UserPoolId": .string(userPoolID), "Username": .string(email),
                "UserAttributes": [["Name": "email", "Value": .string(email)]],
            ], timeout: Self.patience)
        let attributes = answer["User"]?["Attributes"]?.array ?? []
        let sub = attributes.first { $0["Name"]?.string == "sub" }?["Value"]?.string
        return try sub.unwrapped("AdminCreateUser answered no sub")
    }

    /// Whether the pool has a user with this `sub` (`AdminGetUser`).
    package func hasUser(_ sub: String) async throws -> Bool {
        do {
            _ = try await service.call(
                "AdminGetUser", ["UserPoolId": .string(userPoolID), "Username": .string(sub)], timeout: Self.patience)
            return true
        } catch let error as AWSServiceError where error.type == "UserNotFoundException" {
            return false
        }
    }
}

extension Optional {
    fileprivate func unwrapped(_ reason: String) throws -> Wrapped {
        guard let self else { throw MotoCognitoError(reason) }
        return self
    }
}

struct MotoCognitoError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
