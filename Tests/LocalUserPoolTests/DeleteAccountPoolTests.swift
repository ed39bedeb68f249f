import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTime
import Testing

@testable import LocalUserPool

/// `DELETE /account` on the emulator once `serve` has its user pool: the account goes with the
/// usage, as `deleteAccount` deletes the Cognito user in AWS.
@Suite("deleteAccount deletes the local pool's user")
struct DeleteAccountPoolTests {
    /// What API Gateway passes on for DELETE /account after the authorizer's Allow for `sub`.
    static func event(_ sub: String) -> JSONValue {
        [
            "resource": "/account", "path": "/account", "httpMethod": "DELETE", "headers": [:], "body": .null,
            "requestContext": [
                "httpMethod": "DELETE", "resourcePath": "/account", "stage": "prod",
                "authorizer": ["principalId": .string(sub), "userId": .string(sub), "tier": "free"],
            ],
        ]
    }

    @Test("204 and the user is gone from the pool; again 204; another user stays; without a pool, usage only")
    func deletesThePoolUser() async throws {
        var options = EmulatorOptions(clock: { Timestamp.now })
        options.developmentKey = PoolFixture.key
        let stack = try await EmulatorStack(options: options)
        let fixture = PoolFixture()
        let leaving = try fixture.confirmedUser("leaving@example.com")
        let staying = try fixture.confirmedUser("staying@example.com")
        _ = try fixture.signIn("leaving@example.com")

        let before = try await stack.handler(for: .deleteAccount).handle(Self.event(leaving), context: stack.context())
        #expect(before["statusCode"] == 204)
        #expect(try fixture.pool.adminGetUser(username: leaving).sub == leaving)

        stack.localAccounts.attach(fixture.pool)
        for _ in 0..<2 {
            let answer = try await stack.handler(for: .deleteAccount).handle(
                Self.event(leaving), context: stack.context())
            #expect(answer["statusCode"] == 204)
            #expect(throws: CognitoError.userNotFound) { try fixture.pool.adminGetUser(username: leaving) }
        }
        #expect(try fixture.pool.adminGetUser(username: staying).sub == staying)
        #expect(throws: CognitoError.self) { try fixture.signIn("leaving@example.com") }
    }
}
