import EmulatorKit
import EmulatorServer
import Foundation
import HTTPText
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime
import InkraUsage
import NIOHTTP1
import SingleTable
import Testing

/// `DELETE /account` (deleteAccount) through `serve`'s API Gateway, and through the Runtime API
/// served by the built `bootstrap`: 204, nothing left under the caller, 204 again, others untouched.
@Suite("DELETE /account: serve and the runtime", .serialized)
struct DeleteAccountServeTests {
    static func items(of user: String, _ served: ServeFixture) -> [Item] {
        (served.stack.memoryTable?.snapshot() ?? []).filter { $0["PK"] == .s(userPartition(user)) }
    }

    static func describe(_ outcome: RuntimeOutcome) -> String {
        guard case .initializationFailed(let type, let body) = outcome else { return "\(outcome)" }
        return "\(type): \(String(decoding: body, as: UTF8.self))"
    }

    func delete(_ served: ServeFixture, token: String?) async throws -> Answer {
        try await served.send(
            .DELETE, served.endpoints.api, path: "/account",
            headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
    }

    /// What a closed account keeps: its month's tombstone (and the next month's, near a month's
    /// end), with nothing but when it ends.
    static func isTombstone(_ items: [Item]) -> Bool {
        !items.isEmpty && items.count <= 2
            && items.allSatisfy {
                Set($0.keys) == ["PK", "SK", "closedUntil", "expiresAt"]
                    && $0["SK"]?.stringValue?.hasPrefix("USAGE#") == true
            }
    }

    @Test("Through the local API Gateway, REST and HTTP API payloads: 204, then 204 again; no token 401")
    func throughTheGateway() async throws {
        for payload in [ProxyRequest.Version.v1, .v2] {
            try await ServeFixture.run(ServeFixture.settings(payload: payload)) { served in
                let ada = try ServeFixture.token("leaving-ada")
                #expect(try await served.generate(token: ada).status == 200)
                #expect(try await served.generate(token: try ServeFixture.token("staying-bob")).status == 200)
                #expect(Self.items(of: "leaving-ada", served).count == 3)
                let bob = Self.items(of: "staying-bob", served)

                let first = try await delete(served, token: ada)
                #expect(first.status == 204)
                #expect(first.body.isEmpty)
                #expect(
                    Self.isTombstone(Self.items(of: "leaving-ada", served)), "\(Self.items(of: "leaving-ada", served))")
                #expect(Self.items(of: "staying-bob", served) == bob)
                let second = try await delete(served, token: ada)
                #expect(second.status == 204)
                #expect(second.body.isEmpty)
                #expect(Self.items(of: "staying-bob", served) == bob)

                #expect(try await delete(served, token: nil).status == 401)
                // The deleted account's token gets nothing more: no fresh month.
                let usage = try await served.send(
                    .GET, served.endpoints.api, path: "/usage", headers: [("Authorization", "Bearer \(ada)")])
                #expect(usage.status == 401)
                #expect(try await served.generate(token: ada).status == 401)
                #expect(
                    served.accessLog.lines.contains { $0.contains("\"DELETE /account") && $0.contains("deleteAccount") }
                )
            }
        }
    }

    @Test("Through the Runtime API, the built bootstrap as deleteAccount on the shared table: 204, again 204")
    func throughTheRuntime() async throws {
        try await ServeFixture.run { served in
            try await deleteThroughTheRuntime(
                served, users: ("runtime-ada", "runtime-bob"), environment: ["INKRA_DELETE_COGNITO_USER": "false"])
        }
    }

    @Test(
        "Through the Runtime API with a Cognito pool (moto): the usage and the Cognito user go, the other user stays",
        .enabled(if: MotoEndpoint.isAvailable, "\(MotoEndpoint.skipReason)"))
    func withTheCognitoUser() async throws {
        let pool = try await MotoCognito.pool()
        let ada = try await pool.createUser(email: "leaving@example.com")
        let bob = try await pool.createUser(email: "staying@example.com")
        var environment = pool.environment
        environment["INKRA_DELETE_COGNITO_USER"] = "true"
        environment["COGNITO_USER_POOL_ID"] = pool.userPoolID
        try await ServeFixture.run { served in
            try await deleteThroughTheRuntime(served, users: (ada, bob), environment: environment)
        }
        #expect(try await pool.hasUser(ada) == false)
        #expect(try await pool.hasUser(bob))
    }

    @Test("Inside Lambda, deleteAccount without INKRA_DELETE_COGNITO_USER stops start-up naming it")
    func failsClosed() async throws {
        let runtime = try await RuntimeAPIServer(functionName: "deleteAccount", clock: { Timestamp.now })
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("INKRA_") }
        environment["AWS_LAMBDA_RUNTIME_API"] = runtime.address
        environment["AWS_LAMBDA_FUNCTION_NAME"] = "deleteAccount"
        environment["_HANDLER"] = "deleteAccount"
        environment["INKRA_STORE"] = "memory"
        environment["INKRA_SERVER_SECRET"] = ServerSecret.developmentText
        let process = Task {
            try await ChildProcess.run(ChildProcess.built("bootstrap"), [], environment: environment)
        }
        let outcome = await runtime.invoke(Array("{}".utf8), timeout: Patience.seconds)
        await runtime.shutdown()
        _ = try await process.value
        guard case .initializationFailed(_, let body) = outcome else {
            Issue.record("start-up did not fail: \(outcome)")
            return
        }
        let message = String(decoding: body, as: UTF8.self)
        #expect(message.contains("INKRA_DELETE_COGNITO_USER must be set for deleteAccount inside Lambda"), "\(message)")
    }

    /// Seeds usage for both users in serve's table, runs the built bootstrap as deleteAccount on
    /// its DynamoDB endpoint with `environment` added, and sends `DELETE /account` for the first
    /// user twice: 204 both times, nothing left under them, the second user untouched.
    func deleteThroughTheRuntime(
        _ served: ServeFixture, users: (leaving: String, staying: String), environment extra: [String: String]
    ) async throws {
        let endpoint = try #require(served.endpoints.dynamoDB)
        let store = served.stack.store
        for user in [users.leaving, users.staying] {
            _ = try await store.consume(
                ConsumeRequest(userID: user, instant: ServeFixture.when, limits: .free, idempotencyKey: "k"))
        }
        #expect(Self.items(of: users.leaving, served).count == 4)
        let staying = Self.items(of: users.staying, served)

        let runtime = try await RuntimeAPIServer(functionName: "deleteAccount", clock: { Timestamp.now })
        // Inside Lambda the runtime refuses INKRA_* settings it does not know (the test run's own).
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("INKRA_") }
        environment["AWS_LAMBDA_RUNTIME_API"] = runtime.address
        environment["AWS_LAMBDA_FUNCTION_NAME"] = "deleteAccount"
        environment["_HANDLER"] = "deleteAccount"
        environment["INKRA_STORE"] = "dynamodb"
        environment["INKRA_SERVER_SECRET"] = ServerSecret.developmentText
        environment["INKRA_TABLE_NAME"] = "inkra-usage"
        environment["AWS_ENDPOINT_URL_DYNAMODB"] = endpoint.absoluteString
        environment["AWS_REGION"] = "us-east-1"
        environment["AWS_ACCESS_KEY_ID"] = "local"
        environment["AWS_SECRET_ACCESS_KEY"] = "local"
        environment["AWS_SESSION_TOKEN"] = nil
        environment.merge(extra) { _, new in new }
        let process = Task {
            try await ChildProcess.run(ChildProcess.built("bootstrap"), [], environment: environment)
        }
        // What API Gateway passes on for DELETE /account after the authorizer's Allow.
        let event: JSONValue = [
            "resource": "/account", "path": "/account", "httpMethod": "DELETE", "headers": [:], "body": .null,
            "requestContext": [
                "httpMethod": "DELETE", "resourcePath": "/account", "stage": "prod",
                "authorizer": [
                    "principalId": .string(users.leaving), "userId": .string(users.leaving), "tier": "free",
                ],
            ],
        ]
        var answers: [JSONValue] = []
        for _ in 0..<2 {
            let outcome = await runtime.invoke(event.jsonBytes, timeout: Patience.seconds)
            guard case .response(let bytes) = outcome else {
                Issue.record("the runtime did not answer: \(Self.describe(outcome))")
                break
            }
            answers.append(try JSONParser.parse(bytes))
            #expect(Self.isTombstone(Self.items(of: users.leaving, served)), "\(Self.items(of: users.leaving, served))")
            #expect(Self.items(of: users.staying, served) == staying)
        }
        await runtime.shutdown()
        let log = try await process.value.standardError
        #expect(answers.count == 2, "\(log)")
        for answer in answers {
            #expect(answer["statusCode"] == 204, "\(answer.jsonString)\n\(log)")
            #expect(answer["body"] == "")
        }
    }
}
