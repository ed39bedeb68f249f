import EmulatorKit
import EmulatorServer
import Foundation
import InkraHandlers
import InkraJSON
import InkraUsage
import NIOHTTP1
import SingleTable
import Testing

@Suite("serve: the local API Gateway over HTTP")
struct APIGatewayServeTests {
    @Test("Without a token: 401 with the code unauthorized, nothing stored, the authorizer not run")
    func withoutToken() async throws {
        try await ServeFixture.run { served in
            let answer = try await served.generate(token: nil)
            #expect(answer.status == 401)
            #expect(answer.text == #"{"error":"Unauthorized","code":"unauthorized"}"#)
            #expect(answer.header("x-amzn-ErrorType") == "UnauthorizedException")
            #expect(answer.header("x-amzn-RequestId") != nil)
            #expect(served.server.gateway.authorizerCache.misses == 0)
            #expect(served.stack.memoryTable?.snapshot().isEmpty == true)
        }
    }

    @Test(
        "A refused token: REST 401 (the TOKEN authorizer's Unauthorized), HTTP API 403 (isAuthorized false); a Deny: 403",
        arguments: ["v1", "v2"])
    func refusals(payload: String) async throws {
        try await ServeFixture.run(ServeFixture.settings(payload: payload == "v1" ? .v1 : .v2)) { served in
            let refused = try await served.generate(token: "not.a.token")
            #expect(refused.status == (payload == "v1" ? 401 : 403))
            #expect(
                refused.text
                    == (payload == "v1"
                        ? #"{"error":"Unauthorized","code":"unauthorized"}"# : #"{"message":"Forbidden"}"#))
            let blocked = try await served.generate(token: try ServeFixture.token("blocked-user", groups: ["blocked"]))
            #expect(blocked.status == 403)
            let expected =
                payload == "v1"
                ? #"{"error":"User is not authorized to access this resource","code":"access_denied"}"#
                : #"{"message":"Forbidden"}"#
            #expect(blocked.text == expected)
            #expect(served.stack.memoryTable?.snapshot().isEmpty == true)
        }
    }

    @Test("With a token, REST (v1) and HTTP API (v2) payloads reach both functions", arguments: ["v1", "v2"])
    func withToken(payload: String) async throws {
        try await ServeFixture.run(ServeFixture.settings(payload: payload == "v1" ? .v1 : .v2)) { served in
            let token = try ServeFixture.token("user-\(payload)", tier: "premium")
            let generated = try await served.generate(token: token)
            #expect(generated.status == 200)
            let body = try generated.json
            #expect(body["questions"]?.array?.isEmpty == false)
            #expect(body["usage"]?["used"] == 1)
            let usage = try await served.send(
                .GET, served.endpoints.api, path: "/usage", headers: [("Authorization", "Bearer \(token)")])
            #expect(usage.status == 200)
            #expect(try usage.json["used"] == 1)
            let requestIDHeader = payload == "v1" ? "x-amzn-RequestId" : "Apigw-Requestid"
            #expect(usage.header(requestIDHeader) != nil)
        }
    }

    @Test("Unknown routes get API Gateway's own answer: REST 403 Missing Authentication Token, HTTP API 404")
    func unknownRoutes() async throws {
        try await ServeFixture.run { served in
            let rest = try await served.send(.GET, served.endpoints.api, path: "/nowhere")
            #expect(rest.status == 403)
            #expect(rest.text == #"{"error":"Missing Authentication Token","code":"request_rejected"}"#)
            let wrongMethod = try await served.send(.DELETE, served.endpoints.api, path: "/questions")
            #expect(wrongMethod.status == 403)
        }
        try await ServeFixture.run(ServeFixture.settings(payload: .v2)) { served in
            let http = try await served.send(.GET, served.endpoints.api, path: "/nowhere")
            #expect(http.status == 404)
            #expect(http.text == #"{"message":"Not Found"}"#)
        }
    }

    @Test("A stage prefix serves /STAGE/questions and nothing at the root")
    func stage() async throws {
        try await ServeFixture.run(ServeFixture.settings(stage: "dev")) { served in
            let token = try ServeFixture.token("staged")
            let staged = try await served.send(
                .GET, served.endpoints.api, path: "/dev/usage", headers: [("Authorization", "Bearer \(token)")])
            #expect(staged.status == 200)
            let root = try await served.send(
                .GET, served.endpoints.api, path: "/usage", headers: [("Authorization", "Bearer \(token)")])
            #expect(root.status == 403)
        }
    }

    @Test("The authorizer runs once for two requests with one token, and again for another token")
    func cachedAuthorizer() async throws {
        try await ServeFixture.run { served in
            let token = try ServeFixture.token("cached", tier: "premium")
            #expect(try await served.generate(token: token).status == 200)
            #expect(try await served.generate(token: token).status == 200)
            #expect(served.server.gateway.authorizerCache.misses == 1)
            #expect(served.server.gateway.authorizerCache.hits == 1)
            #expect(try await served.generate(token: try ServeFixture.token("other")).status == 200)
            #expect(served.server.gateway.authorizerCache.misses == 2)
            let log = served.accessLog.lines
            #expect(log.count == 3)
            #expect(log[0].contains("authorizer=invoked") && log[1].contains("authorizer=cached"))
            #expect(log[0].contains("\"POST /questions HTTP/1.1\" 200"))
        }
    }

    @Test("--authorizer-cache-ttl 0 runs the authorizer for every request")
    func cacheOff() async throws {
        try await ServeFixture.run(ServeFixture.settings(authorizerCacheTTL: 0)) { served in
            let token = try ServeFixture.token("uncached", tier: "premium")
            #expect(try await served.generate(token: token).status == 200)
            #expect(try await served.generate(token: token).status == 200)
            #expect(served.server.gateway.authorizerCache.misses == 2)
            #expect(served.server.gateway.authorizerCache.hits == 0)
        }
    }

    @Test("A cached Deny still refuses: the cached policy is evaluated for each request")
    func cachedDeny() async throws {
        try await ServeFixture.run { served in
            let token = try ServeFixture.token("blocked-twice", groups: ["blocked"])
            #expect(try await served.generate(token: token).status == 403)
            #expect(try await served.generate(token: token).status == 403)
            #expect(served.server.gateway.authorizerCache.misses == 1)
        }
    }

    @Test("CORS preflight: 204 with the allow headers, without the authorizer; responses carry the origin")
    func cors() async throws {
        let policy = CORSPolicy(allowedOrigins: ["https://app.example"])
        try await ServeFixture.run(ServeFixture.settings(cors: policy)) { served in
            let preflight = try await served.send(
                .OPTIONS, served.endpoints.api, path: "/questions",
                headers: [
                    ("Origin", "https://app.example"), ("Access-Control-Request-Method", "POST"),
                    ("Access-Control-Request-Headers", "authorization,content-type"),
                ])
            #expect(preflight.status == 204)
            #expect(preflight.headerValues("Access-Control-Allow-Origin") == ["https://app.example"])
            #expect(preflight.header("Access-Control-Allow-Methods")?.contains("POST") == true)
            #expect(preflight.header("Access-Control-Allow-Headers")?.contains("Authorization") == true)
            #expect(served.server.gateway.authorizerCache.misses == 0)

            let stranger = try await served.send(
                .OPTIONS, served.endpoints.api, path: "/questions",
                headers: [("Origin", "https://evil.example"), ("Access-Control-Request-Method", "POST")])
            #expect(stranger.header("Access-Control-Allow-Origin") == nil)

            let refused = try await served.send(
                .GET, served.endpoints.api, path: "/usage", headers: [("Origin", "https://app.example")])
            #expect(refused.status == 401)
            #expect(refused.header("Access-Control-Allow-Origin") == "https://app.example")
            #expect(refused.header("Access-Control-Expose-Headers")?.contains("Retry-After") == true)
        }
    }

    @Test("A binary body reaches the function base64-encoded and is decoded there")
    func binaryBody() async throws {
        try await ServeFixture.run { served in
            let token = try ServeFixture.token("binary", tier: "premium")
            let body = Array(#"{"topic":"the harbour at dawn","length":"short"}"#.utf8)
            let answer = try await served.send(
                .POST, served.endpoints.api, path: "/questions",
                headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/octet-stream")],
                body: body)
            #expect(answer.status == 200)
            #expect(try answer.json["questions"]?.array?.isEmpty == false)
            let garbage = try await served.send(
                .POST, served.endpoints.api, path: "/questions",
                headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/octet-stream")],
                body: [0xFF, 0xFE, 0x00, 0x01])
            #expect(garbage.status == 400)
        }
    }

    @Test("500 concurrent POST /questions for one free user: exactly 2 answered 200, the rest 429, still healthy")
    func concurrentFreeUser() async throws {
        try await ServeFixture.run { served in
            let token = try ServeFixture.token("free-burst")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<500 { group.addTask { try await served.generate(token: token).status } }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.count(where: { $0 == 200 }) == 2)
            #expect(statuses.count(where: { $0 == 429 }) == 498)
            let usage = try await served.send(
                .GET, served.endpoints.api, path: "/usage", headers: [("Authorization", "Bearer \(token)")])
            #expect(usage.status == 200)
            #expect(try usage.json["hourly"]?["used"] == 2)
            #expect(served.server.gateway.authorizerCache.misses >= 1)
        }
    }
}
