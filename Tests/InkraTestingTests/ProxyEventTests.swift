import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTesting
import Testing

/// Each recorded proxy event of events/ against the event ``ProxyEvent`` builds for the same
/// request: the same members, and the same request once read as the functions read it.
@Suite("ProxyEvent against the recorded events")
struct ProxyEventTests {
    static let samples: [(name: String, event: JSONValue)] = {
        do {
            return try Samples.events(in: ["generateQuestions", "checkUsage", "free-user-limits"])
        } catch {
            fatalError("events/: \(error)")
        }
    }()

    @Test("There are recorded proxy events of both payloads to compare with")
    func samplesExist() {
        let versions = Self.samples.map { $0.event["version"]?.string ?? "1.0" }
        #expect(versions.filter { $0 == "1.0" }.count >= 10)
        #expect(versions.filter { $0 == "2.0" }.count >= 10)
    }

    @Test("The builder's event and the recorded one decode to the same request", arguments: samples.map(\.name))
    func sameRequest(name: String) async throws {
        let recorded = try #require(Self.samples.first { $0.name == name }?.event)
        let request = try ProxyRequest(event: recorded)
        let time = try #require(request.requestTime)
        let token = request.header("Authorization")
        let method = try #require(request.httpMethod)
        let path = try #require(request.path)

        // What reaches the function: the authorizer's answer injected as API Gateway injects it.
        var delivered = recorded
        var caller: Caller?
        if let token, request.authorizer == nil {
            let event =
                request.version == .v2
                ? AuthorizerEvent.http(token, method: method, path: path, at: time)
                : AuthorizerEvent.token(token, method: method, path: path)
            let answer = try? AuthorizerResult(
                await Samples.authorizer(at: time).handle(event, context: InvocationContext(time: time)))
            if let answer, answer.isAllowed {
                delivered = answer.injected(into: recorded)
                caller = try Samples.caller(fromToken: token)
            }
        }

        var headers: [String: String] = [:]
        for name in ["Authorization", "Idempotency-Key"] { headers[name] = request.header(name) }
        let body = try request.bodyBytes().map { String(decoding: $0, as: UTF8.self) }
        let base64 = recorded["isBase64Encoded"]?.bool == true
        let built =
            request.version == .v2
            ? ProxyEvent.http(
                method, path, caller: caller, body: body, headers: headers, at: time, base64: base64,
                authorizer: request.authorizer.map(JSONValue.object))
            : ProxyEvent.rest(
                method, path, caller: caller, body: body, headers: headers, at: time, base64: base64,
                authorizer: request.authorizer.map(JSONValue.object))

        try expectSameRequest(built, delivered)
    }

    func expectSameRequest(_ built: JSONValue, _ recorded: JSONValue) throws {
        let mine = try ProxyRequest(event: built)
        let theirs = try ProxyRequest(event: recorded)
        #expect(mine.version == theirs.version)
        #expect(mine.httpMethod == theirs.httpMethod)
        #expect(mine.path == theirs.path)
        #expect(mine.requestTime == theirs.requestTime)
        #expect(try mine.bodyBytes() == theirs.bodyBytes())
        for name in ["Content-Type", "Authorization", "Idempotency-Key"] {
            #expect(mine.header(name) == theirs.header(name), "\(name)")
        }
        #expect(mine.authorizer == theirs.authorizer)
        #expect(CallerIdentity(authorizer: mine.authorizer) == CallerIdentity(authorizer: theirs.authorizer))
        #expect(Samples.keys(built) == Samples.keys(recorded))
        let context = theirs.requestContext.map(JSONValue.object)
        #expect(Samples.keys(built["requestContext"]) == Samples.keys(context))
        #expect(built[path: ["requestContext", "requestTime"]] == recorded[path: ["requestContext", "requestTime"]])
        #expect(built[path: ["requestContext", "time"]] == recorded[path: ["requestContext", "time"]])
        #expect(
            built[path: ["requestContext", "http"]]?.object?.keys
                == recorded[path: ["requestContext", "http"]]?.object?.keys)
    }

    @Test("A caller's event carries the authorizer's context as API Gateway passes it on")
    func callerContext() throws {
        let ada = Caller("ada", tier: .premium, quota: 40, email: "ada@example.com")
        let rest = ProxyEvent.rest(caller: ada, body: "{}")
        #expect(
            rest[path: ["requestContext", "authorizer"]]
                == [
                    "principalId": "ada", "userId": "ada", "email": "ada@example.com", "tier": "premium",
                    "quota": "40", "integrationLatency": 0,
                ])
        let http = ProxyEvent.http("GET", "/usage", caller: Caller("bo", groups: ["premium_tier"]))
        #expect(
            http[path: ["requestContext", "authorizer"]] == [
                // The tier names the limits; the functions hold them (no `quota` without the user's own).
                "lambda": ["userId": "bo", "tier": "premium"]
            ]
        )
        #expect(http["body"] == nil)
        #expect(ProxyEvent.rest("GET", "/usage")[path: ["requestContext", "authorizer"]] == nil)
    }

    @Test("Headers a test names replace API Gateway's usual ones in any case; base64 bodies decode")
    func headersAndBodies() throws {
        let rest = try ProxyRequest(
            event: ProxyEvent.rest(body: "héllo", headers: ["content-type": "text/plain"], base64: true))
        #expect(rest.header("Content-Type") == "text/plain")
        #expect(rest.event["multiValueHeaders"]?.object?.keys.filter { $0.lowercased() == "content-type" }.count == 1)
        #expect(rest.event["body"] == .string(Data("héllo".utf8).base64EncodedString()))
        #expect(try rest.bodyBytes() == Array("héllo".utf8))
        let http = try ProxyRequest(event: ProxyEvent.http(body: "héllo", headers: ["X-Trace": "1"]))
        #expect(http.event["headers"]?["x-trace"] == "1")
        #expect(http.header("content-length") == "6")
    }
}
