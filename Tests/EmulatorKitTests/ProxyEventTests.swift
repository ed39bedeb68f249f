import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTime
import Synchronization
import Testing

@Suite("The local API Gateway's events, built from real requests")
struct ProxyEventTests {
    static let when = Timestamp(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z

    /// The API in front of a target that records the event and answers a fixed proxy response.
    func gateway(_ payload: ProxyRequest.Version, answer: JSONValue = ["statusCode": 200, "body": "ok"]) async throws
        -> (
            LocalAPIGateway, Recorded
        )
    {
        var options = Repository.options(now: Self.when)
        options.now = Self.when
        let stack = try await EmulatorStack(options: options)
        var configuration = LocalAPIGateway.Configuration()
        configuration.payload = payload
        let seen = Recorded()
        let gateway = LocalAPIGateway(stack: stack, configuration: configuration) { function, event, _ in
            guard function != .authorizer else { return nil }
            seen.events.withLock { $0.append(event) }
            return Invocation(outcome: .success(answer))
        }
        return (gateway, seen)
    }

    func request(body: [UInt8] = [], contentType: String? = "application/json") throws -> LocalHTTPRequest {
        let token = try DevelopmentTokens.mint(
            with: Repository.developmentKey, claims: .init(sub: "shape", tier: "premium"), at: Self.when)
        var headers: [(name: String, value: String)] = [
            ("Host", "localhost:3000"), ("Authorization", "Bearer \(token)"), ("X-Trace", "a"), ("x-trace", "b"),
            ("User-Agent", "curl/8.0"), ("Cookie", "theme=dark; lang=en"),
        ]
        if let contentType { headers.append(("Content-Type", contentType)) }
        return LocalHTTPRequest(
            method: "POST", path: "/questions", query: "lang=en&tag=a&tag=b%20c", headers: headers, body: body,
            sourceIP: "10.1.2.3")
    }

    @Test("Request ids are lower-case version-4 UUIDs, a new one per request")
    func requestIDs() async throws {
        let (gateway, _) = try await gateway(.v1)
        var seen: Set<String> = []
        for _ in 0..<200 {
            let id = await gateway.respond(try request(body: [])).requestID
            let groups = id.split(separator: "-", omittingEmptySubsequences: false)
            #expect(groups.map(\.count) == [8, 4, 4, 4, 12])
            #expect(id.allSatisfy { "0123456789abcdef-".contains($0) })
            #expect(groups[2].first == "4")
            #expect("89ab".contains(groups[3].first ?? "x"))
            seen.insert(id)
        }
        #expect(seen.count == 200)
    }

    @Test("Request ids stay well-formed and distinct across the random pool's refills, from concurrent requests")
    func requestIDsUnderLoad() async throws {
        let (gateway, _) = try await gateway(.v2)
        let request = try request()
        // 4 × 300 ids: over four refills of the 256-id pool, drawn from four tasks at once.
        let ids = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var ids: [String] = []
                    for _ in 0..<300 { ids.append(await gateway.respond(request).requestID) }
                    return ids
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(Set(ids).count == 1_200)
        for id in ids {
            let groups = id.split(separator: "-", omittingEmptySubsequences: false)
            #expect(groups.map(\.count) == [8, 4, 4, 4, 12])
            #expect(groups[2].first == "4" && "89ab".contains(groups[3].first ?? "x"))
        }
    }

    @Test("requestTime follows the clock: requests in one second share it; the next second and an earlier one differ")
    func requestTimes() async throws {
        let clock = Mutex(Self.when)
        let stack = try await EmulatorStack(
            options: {
                var options = Repository.options()
                options.clock = { clock.withLock { $0 } }
                return options
            }())
        let seen = Recorded()
        let gateway = LocalAPIGateway(stack: stack) { function, event, _ in
            guard function != .authorizer else { return nil }
            seen.events.withLock { $0.append(event) }
            return Invocation(outcome: .success(["statusCode": 200, "body": "ok"]))
        }
        let request = try request()
        for offset in [0, 0.25, 0.999, 1.0, 61.5, -3_600] {
            clock.withLock { $0 = Self.when.addingTimeInterval(offset) }
            _ = await gateway.respond(request)
        }
        let times = seen.events.withLock { $0 }.map { $0["requestContext"]?["requestTime"]?.string }
        #expect(
            times == [
                "15/Jan/2027:08:00:00 +0000", "15/Jan/2027:08:00:00 +0000", "15/Jan/2027:08:00:00 +0000",
                "15/Jan/2027:08:00:01 +0000", "15/Jan/2027:08:01:01 +0000", "15/Jan/2027:07:00:00 +0000",
            ])
    }

    @Test(
        "domainPrefix is the host's first label without its port",
        arguments: [
            ("localhost:3000", "localhost"), ("127.0.0.1:3000", "127"), ("api.example.com", "api"),
            ("abc123.execute-api.eu-west-1.amazonaws.com", "abc123"), ("localhost", "localhost"),
        ])
    func domainPrefix(host: String, prefix: String) async throws {
        for payload in [ProxyRequest.Version.v1, .v2] {
            let (gateway, seen) = try await gateway(payload)
            var request = try request()
            request.headers = request.headers.map { $0.name == "Host" ? (name: "Host", value: host) : $0 }
            _ = await gateway.respond(request)
            let context = try #require(seen.events.withLock { $0.first }?["requestContext"])
            #expect(context["domainPrefix"]?.string == prefix)
            #expect(context["domainName"]?.string == host)
        }
    }

    @Test(
        "REST (1.0): headers and multi-value headers, query strings, source IP, request id and time, context injected")
    func rest() async throws {
        let (gateway, seen) = try await gateway(.v1)
        let served = await gateway.respond(try request(body: Array(#"{"topic":"x"}"#.utf8)))
        #expect(served.response.status == 200)
        #expect(String(decoding: served.response.body, as: UTF8.self) == "ok")
        let event = try #require(seen.events.withLock { $0.first })
        #expect(event["resource"] == "/questions")
        #expect(event["path"] == "/questions")
        #expect(event["httpMethod"] == "POST")
        #expect(event["headers"]?["X-Trace"] == "b")
        #expect(event["multiValueHeaders"]?["X-Trace"] == ["a", "b"])
        #expect(event["queryStringParameters"]?["tag"] == "b c")
        #expect(event["multiValueQueryStringParameters"]?["tag"] == ["a", "b c"])
        #expect(event["body"] == #"{"topic":"x"}"#)
        #expect(event["isBase64Encoded"] == false)
        let context = try #require(event["requestContext"])
        #expect(context["identity"]?["sourceIp"] == "10.1.2.3")
        #expect(context["identity"]?["userAgent"] == "curl/8.0")
        #expect(context["requestId"]?.string == served.requestID)
        #expect(context["extendedRequestId"]?.string == String(served.requestID.prefix(16)))
        #expect(served.response.headers.contains { $0.name == "x-amzn-RequestId" && $0.value == served.requestID })
        #expect(context["requestTimeEpoch"] == .number(1_800_000_000_000))
        #expect(context["requestTime"] == "15/Jan/2027:08:00:00 +0000")
        #expect(context["stage"] == "prod")
        #expect(context["path"] == "/prod/questions")
        #expect(context["authorizer"]?["principalId"] == "shape")
        #expect(context["authorizer"]?["tier"] == "premium")
    }

    @Test("REST (1.0): a header's first spelling names it, with its last value and all its values in order")
    func restHeaderSpellings() async throws {
        let (gateway, seen) = try await gateway(.v1)
        var request = try request()
        request.headers = [
            ("Host", "127.0.0.1:3000"), ("X-Trace", "a"), ("Authorization", request.header("Authorization") ?? ""),
            ("x-trace", "b"), ("Accept", "*/*"), ("X-TRACE", "c"),
        ]
        _ = await gateway.respond(request)
        let event = try #require(seen.events.withLock { $0.first })
        #expect(event["headers"]?.object?.keys == ["Host", "X-Trace", "Authorization", "Accept"])
        #expect(event["headers"]?["X-Trace"] == "c")
        #expect(event["headers"]?["x-trace"] == nil)
        #expect(event["multiValueHeaders"]?.object?.keys == ["Host", "X-Trace", "Authorization", "Accept"])
        #expect(event["multiValueHeaders"]?["X-Trace"] == ["a", "b", "c"])
        #expect(event["multiValueHeaders"]?["Accept"] == ["*/*"])
        let context = try #require(event["requestContext"])
        let requestID = try #require(context["requestId"]?.string)
        #expect(context["extendedRequestId"]?.string == String(requestID.prefix(16)))
    }

    @Test("HTTP API (2.0): lower-case joined headers, cookies, raw query, joined parameters, context under lambda")
    func http() async throws {
        let (gateway, seen) = try await gateway(.v2)
        _ = await gateway.respond(try request(body: Array(#"{"topic":"x"}"#.utf8)))
        let event = try #require(seen.events.withLock { $0.first })
        #expect(event["version"] == "2.0")
        #expect(event["routeKey"] == "POST /questions")
        #expect(event["rawPath"] == "/questions")
        #expect(event["rawQueryString"] == "lang=en&tag=a&tag=b%20c")
        #expect(event["headers"]?["x-trace"] == "a,b")
        #expect(event["headers"]?["cookie"] == nil)
        #expect(event["cookies"] == ["theme=dark", "lang=en"])
        #expect(event["queryStringParameters"]?["tag"] == "a,b c")
        #expect(event["requestContext"]?["http"]?["sourceIp"] == "10.1.2.3")
        #expect(event["requestContext"]?["http"]?["method"] == "POST")
        #expect(event["requestContext"]?["stage"] == "$default")
        #expect(event["requestContext"]?["timeEpoch"] == .number(1_800_000_000_000))
        #expect(event["requestContext"]?["authorizer"]?["lambda"]?["tier"] == "premium")
    }

    @Test("A binary body is base64 with isBase64Encoded; an empty one is absent", arguments: ["v1", "v2"])
    func binary(payload: String) async throws {
        let (gateway, seen) = try await gateway(payload == "v1" ? .v1 : .v2)
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF]
        _ = await gateway.respond(try request(body: bytes, contentType: "image/png"))
        _ = await gateway.respond(try request())
        let events = seen.events.withLock { $0 }
        #expect(events[0]["isBase64Encoded"] == true)
        #expect(events[0]["body"]?.string.flatMap { Data(base64Encoded: $0) } == Data(bytes))
        #expect(events[1]["body"] == nil || events[1]["body"] == .null)
        #expect(events[1]["isBase64Encoded"] == false)
    }

    @Test("Proxy responses: multi-value headers, base64 bodies; a failed function is 502 (REST) or 500 (HTTP API)")
    func responses() async throws {
        let answer: JSONValue = [
            "statusCode": 201, "headers": ["X-One": "1"], "multiValueHeaders": ["Set-Cookie": ["a=1", "b=2"]],
            "body": "aGVsbG8=", "isBase64Encoded": true,
        ]
        let (gateway, _) = try await gateway(.v1, answer: answer)
        let served = await gateway.respond(try request())
        #expect(served.response.status == 201)
        #expect(served.response.body == Array("hello".utf8))
        #expect(served.response.headers.filter { $0.name == "Set-Cookie" }.map(\.value) == ["a=1", "b=2"])

        let (broken, _) = try await self.gateway(.v1, answer: ["no": "status"])
        let failed = await broken.respond(try request())
        #expect(failed.response.status == 502)
        #expect(
            String(decoding: failed.response.body, as: UTF8.self)
                == #"{"error":"Internal server error","code":"gateway_error"}"#)

        let (plain, _) = try await self.gateway(.v2, answer: ["just": "json"])
        let simple = await plain.respond(try request())
        #expect(simple.response.status == 200)
        #expect(String(decoding: simple.response.body, as: UTF8.self) == #"{"just":"json"}"#)
    }
}

/// The events a target saw.
final class Recorded: Sendable {
    let events = Mutex<[JSONValue]>([])
}
