import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTime
import Synchronization
import Testing

/// API Gateway's request validator as `serve` plays it ("Request validation for REST APIs in API
/// Gateway": a body the method's model refuses is answered 400 and the integration is not called).
@Suite("Request models: refused bodies never reach a function")
struct RequestModelTests {
    static let when = Timestamp(timeIntervalSince1970: 1_800_000_000)

    /// Bodies the model refuses: none of them can be valid.
    static let refused: [String] = [
        "", "null", "[]", "\"topic\"", "42", "{", "{}", #"{"topic":null}"#, #"{"topic":""}"#, #"{"topic":7}"#,
        #"{"topic":"a","length":"huge"}"#, #"{"topic":"a","length":3}"#, #"{"topic":"a","count":0}"#,
        #"{"topic":"a","count":21}"#, #"{"topic":"a","count":2.5}"#, #"{"topic":"a","count":"5"}"#,
        #"{"topic":"a","count":true}"#, #"{"topic":"a","language":""}"#, #"{"topic":"a","language":["en"]}"#,
        #"{"length":"short"}"#,
    ]
    /// Bodies the model lets through: valid ones, and ones only the function can refuse (limits
    /// counted after trimming).
    static let passed: [String] = [
        #"{"topic":"a"}"#, #"{"topic":"a","length":"long","count":20,"language":"es-MX"}"#,
        #"{"topic":"a","length":null,"count":null,"language":null}"#, #"{"topic":"a","count":5.0}"#,
        #"{"topic":"a","count":1e1}"#, #"{"topic":"a","extra":{"nested":[1,2]}}"#, #"{"topic":"   "}"#,
        #"{"topic":"a","language":"   "}"#,
    ]

    @Test("The model refuses what generateQuestions refuses, and lets through every valid body")
    func modelAgreesWithTheFunction() {
        for body in Self.refused {
            #expect(!RequestModel.questions.accepts(body: Array(body.utf8), contentType: "application/json"), "\(body)")
            // Never a body the function would have taken: the gateway refuses only the impossible.
            #expect(throws: HTTPError.self, "\(body)") { try QuestionsBody(Array(body.utf8)) }
        }
        for body in Self.passed {
            #expect(RequestModel.questions.accepts(body: Array(body.utf8), contentType: "application/json"), "\(body)")
        }
        // A topic at the function's limits passes the model.
        let longest = String(repeating: "é", count: QuestionsBody.maximumTopicCharacters)
        let body = Array(#"{"topic":"\#(longest)"}"#.utf8)
        #expect(RequestModel.questions.accepts(body: body, contentType: "application/json"))
        #expect(throws: Never.self) { try QuestionsBody(body) }
    }

    @Test(
        "Only a JSON body is checked: the model is filed under application/json, and no Content-Type counts as JSON",
        arguments: [
            ("application/json", false), ("Application/JSON; charset=utf-8", false), (nil, false),
            ("text/plain", true), ("application/x-www-form-urlencoded", true),
        ] as [(String?, Bool)])
    func contentTypes(contentType: String?, accepted: Bool) {
        #expect(RequestModel.questions.accepts(body: Array("{}".utf8), contentType: contentType) == accepted)
    }

    /// The API in front of a target that counts the functions invoked.
    func gateway(payload: ProxyRequest.Version, validates: Bool) async throws -> (LocalAPIGateway, Invoked) {
        var options = Repository.options()
        options.now = Self.when
        let stack = try await EmulatorStack(options: options)
        var configuration = LocalAPIGateway.Configuration()
        configuration.payload = payload
        configuration.validatesBodies = validates
        let invoked = Invoked()
        let gateway = LocalAPIGateway(stack: stack, configuration: configuration) { function, _, _ in
            guard function != .authorizer else { return nil }
            invoked.functions.withLock { $0.append(function) }
            return Invocation(outcome: .success(["statusCode": 200, "body": "{}"]))
        }
        return (gateway, invoked)
    }

    func request(_ body: String, token: String? = nil) throws -> LocalHTTPRequest {
        let token =
            try token
            ?? DevelopmentTokens.mint(
                with: Repository.developmentKey, claims: .init(sub: "model", tier: "premium"), at: Self.when)
        return LocalHTTPRequest(
            method: "POST", path: "/questions", query: "",
            headers: [
                ("Host", "localhost:3000"), ("Authorization", "Bearer \(token)"), ("Content-Type", "application/json"),
            ],
            body: Array(body.utf8), sourceIP: "10.1.2.3")
    }

    @Test("REST: an invalid body is 400 request_rejected from API Gateway and the function is not invoked")
    func restRefuses() async throws {
        let (gateway, invoked) = try await gateway(payload: .v1, validates: true)
        let sent = try request(#"{"topic":"a","count":99}"#)
        let served = await gateway.respond(sent)
        #expect(served.response.status == 400)
        #expect(
            String(decoding: served.response.body, as: UTF8.self)
                == #"{"error":"Invalid request body","code":"request_rejected"}"#)
        #expect(served.response.header("x-amzn-ErrorType") == "BadRequestException")
        #expect(invoked.functions.withLock { $0 }.isEmpty)
        #expect(served.bodyRefused)
        #expect(served.authorizer == .invoked)
        let line = served.accessLogLine(for: sent)
        #expect(line.contains(" 400 ") && line.contains("validation=refused"))
        #expect(!line.contains("count"))

        let valid = await gateway.respond(try request(#"{"topic":"a","count":20}"#))
        #expect(valid.response.status == 200)
        #expect(!valid.bodyRefused)
        #expect(!valid.accessLogLine(for: sent).contains("validation="))
        #expect(invoked.functions.withLock { $0 } == [.generateQuestions])
    }

    @Test("The authorizer comes first: an invalid body without a valid token is 401, not 400")
    func authorizerFirst() async throws {
        let (gateway, invoked) = try await gateway(payload: .v1, validates: true)
        let served = await gateway.respond(try request("{}", token: "not.a.token"))
        #expect(served.response.status == 401)
        #expect(invoked.functions.withLock { $0 }.isEmpty)
    }

    @Test("HTTP APIs have no request validation, and a gateway without it passes any body on")
    func noValidation() async throws {
        for (payload, validates) in [(ProxyRequest.Version.v2, true), (.v1, false)] {
            let (gateway, invoked) = try await gateway(payload: payload, validates: validates)
            let served = await gateway.respond(try request("[]"))
            #expect(served.response.status == 200)
            #expect(invoked.functions.withLock { $0 } == [.generateQuestions])
        }
    }
}

/// The functions a gateway invoked.
final class Invoked: Sendable {
    let functions = Mutex<[FunctionName]>([])
}
