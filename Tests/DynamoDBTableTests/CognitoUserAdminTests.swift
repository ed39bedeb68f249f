import AWSServices
import Foundation
import HTTPText
import InkraJSON
import InkraTestSupport
import InkraTime
import Synchronization
import Testing

/// `AdminDeleteUser` as the Cognito Identity Provider API documents it
/// (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_AdminDeleteUser.html):
/// a JSON-protocol POST with `X-Amz-Target: AWSCognitoIdentityProviderService.AdminDeleteUser`, 200
/// with an empty body on success, `UserNotFoundException` (400) when the pool has no such user.
@Suite("Cognito AdminDeleteUser")
struct CognitoUserAdminTests {
    /// Answers each request with the next scripted answer and keeps the requests.
    final class ScriptedCognito: DynamoDBTransport {
        let answers: Mutex<[DynamoDBHTTPResponse]>
        let requests = Mutex<[DynamoDBHTTPRequest]>([])

        init(_ answers: [DynamoDBHTTPResponse]) { self.answers = Mutex(answers) }

        func send(_ request: DynamoDBHTTPRequest) async throws -> DynamoDBHTTPResponse {
            requests.withLock { $0.append(request) }
            return answers.withLock { $0.removeFirst() }
        }
    }

    static func error(_ status: Int, _ type: String, _ message: String) -> DynamoDBHTTPResponse {
        DynamoDBHTTPResponse(status: status, body: Array(#"{"__type":"\#(type)","message":"\#(message)"}"#.utf8))
    }

    static let credentials = [
        "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "eu-west-1",
    ]

    @Test("Deleted: 200 and an empty body; the call is signed for cognito-idp in the pool's region")
    func deletes() async throws {
        let transport = ScriptedCognito([DynamoDBHTTPResponse(status: 200, body: [])])
        let admin = try CognitoUserAdmin(
            userPoolID: "us-east-1_AbCdEf123", aws: AWSSettings(environment: Self.credentials), transport: transport,
            now: { Timestamp.now })
        #expect(try await admin.deleteUser("0b1c-sub"))
        #expect(admin.endpoint.absoluteString == "https://cognito-idp.us-east-1.amazonaws.com")
        let request = try #require(transport.requests.withLock { $0.first })
        let headers = Dictionary(request.headers, uniquingKeysWith: { first, _ in first })
        #expect(headers["X-Amz-Target"] == "AWSCognitoIdentityProviderService.AdminDeleteUser")
        #expect(headers["Content-Type"] == "application/x-amz-json-1.1")
        #expect(headers["Authorization"]?.contains("/us-east-1/cognito-idp/aws4_request") == true)
        let body = try JSONParser.parse(request.body)
        #expect(body == ["UserPoolId": "us-east-1_AbCdEf123", "Username": "0b1c-sub"])
    }

    @Test("UserNotFoundException is an account already gone; any other answer is an error naming it")
    func failures() async throws {
        // Throttling and 5xx are tried again first (AWSJSONServiceRetryTests); these are answers.
        let transport = ScriptedCognito([
            Self.error(400, "UserNotFoundException", "User does not exist."),
            Self.error(400, "NotAuthorizedException", "Access denied"),
            Self.error(400, "ResourceNotFoundException", "User pool us-east-1_AbCdEf123 does not exist."),
        ])
        let admin = try CognitoUserAdmin(
            userPoolID: "us-east-1_AbCdEf123", aws: AWSSettings(environment: Self.credentials), transport: transport,
            now: { Timestamp.now })
        #expect(try await admin.deleteUser("gone") == false)
        await #expect(throws: AWSServiceError(type: "NotAuthorizedException", message: "Access denied")) {
            try await admin.deleteUser("someone")
        }
        await #expect(
            throws: AWSServiceError(
                type: "ResourceNotFoundException", message: "User pool us-east-1_AbCdEf123 does not exist.")
        ) {
            try await admin.deleteUser("someone")
        }
        #expect(transport.requests.withLock { $0.count } == 3)
    }

    @Test("Without credentials, construction fails naming the variable")
    func missingCredentials() {
        let error = #expect(throws: AWSServiceError.self) {
            try CognitoUserAdmin(userPoolID: "us-east-1_AbCdEf123", aws: AWSSettings(), now: { Timestamp.now })
        }
        #expect(error?.type == AWSServiceError.invalidConfiguration)
    }

    @Test(
        "Against moto: the user goes; a second deletion finds none; another user stays",
        .enabled(if: MotoEndpoint.isAvailable, "\(MotoEndpoint.skipReason)"))
    func againstMoto() async throws {
        let pool = try await MotoCognito.pool()
        let ada = try await pool.createUser(email: "ada@example.com")
        let bob = try await pool.createUser(email: "bob@example.com")
        let admin = try pool.admin()
        #expect(try await admin.deleteUser(ada, timeout: MotoCognito.patience))
        #expect(try await pool.hasUser(ada) == false)
        #expect(try await admin.deleteUser(ada, timeout: MotoCognito.patience) == false)
        #expect(try await pool.hasUser(bob))
    }
}
