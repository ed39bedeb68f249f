import EmulatorKit
import EmulatorServer
import Foundation
import HTTPText
import InkraJSON
import InkraTestSupport
import LocalUserPool
import NIOCore
import NIOHTTP1
import SingleTable
import Testing

@Suite("serve --console-port: the console's JSON and its live list")
struct ConsoleTests {
    static func settings() -> ServeConfiguration {
        var configuration = ServeFixture.settings()
        configuration.ports[.console] = 0
        return configuration
    }

    @Test("The live list sends each request as a server-sent event: method, path, user, status, authorizer, units")
    func liveList() async throws {
        try await ServeFixture.run(Self.settings()) { served in
            let console = try #require(served.endpoints.console)
            let token = try ServeFixture.token("alice")
            let stream = try await ConsoleStream.open(console)
            #expect(stream.contentType?.hasPrefix("text/event-stream") == true)
            #expect(try await served.generate(token: token).status == 200)
            #expect(try await served.generate(token: nil).status == 401)
            let events = try await stream.next(2, within: Patience.hang)
            #expect(events.map(\.name) == ["exchange", "exchange"])
            let first = try JSONParser.parse(events[0].data)
            #expect(first["method"] == "POST")
            #expect(first["path"] == "/questions")
            #expect(first["user"] == "alice")
            #expect(first["status"] == 200)
            #expect(first["authorizer"] == "invoked")
            #expect(first["decision"] == "allow")
            #expect(first["units"] == 1)
            #expect(first["function"] == "generateQuestions")
            #expect(events[0].id == "\(served.server.console?.feed.run ?? "?")-1")
            let second = try JSONParser.parse(events[1].data)
            #expect(second["status"] == 401)
            #expect(second["user"] == .null)
            #expect(second["authorizer"] == "none")
            #expect(second["units"] == 0)
            // Left open: the server's shutdown must end it rather than wait for it.
        }
    }

    @Test("A stream reopened with Last-Event-ID of this run gets the requests after it; of another run, all of them")
    func resumes() async throws {
        try await ServeFixture.run(Self.settings()) { served in
            let console = try #require(served.endpoints.console)
            let run = try #require(served.server.console?.feed.run)
            for _ in 0..<3 { _ = try await served.send(.GET, served.endpoints.api, path: "/nowhere") }
            let stream = try await ConsoleStream.open(console, lastEventID: "\(run)-2")
            _ = try await served.send(.GET, served.endpoints.api, path: "/usage")
            let events = try await stream.next(2, within: Patience.hang)
            #expect(events.map(\.id) == ["\(run)-3", "\(run)-4"])
            let earlierRun = try await ConsoleStream.open(console, lastEventID: "0badc0de-3")
            #expect(try await earlierRun.next(4, within: Patience.hang).map(\.id) == (1...4).map { "\(run)-\($0)" })
            #expect(try JSONParser.parse(events[0].data)["path"] == "/nowhere")
            #expect(try JSONParser.parse(events[0].data)["units"] == .null)
            #expect(try JSONParser.parse(events[1].data)["path"] == "/usage")
        }
    }

    @Test("A request's detail shows the event, the authorizer's answer (run, then cached) and the response; no token")
    func detail() async throws {
        try await ServeFixture.run(Self.settings()) { served in
            let console = try #require(served.endpoints.console)
            let token = try ServeFixture.token("bob", tier: "premium")
            #expect(try await served.generate(token: token).status == 200)
            #expect(try await served.generate(token: token).status == 200)
            let first = try await served.send(.GET, console, path: "api/requests/1")
            #expect(first.status == 200)
            #expect(!first.text.contains(token))
            let detail = try first.json
            #expect(detail["summary"]?["user"] == "bob")
            #expect(detail["event"]?["httpMethod"] == "POST")
            #expect(detail["event"]?["resource"] == "/questions")
            #expect(detail["event"]?["headers"]?["Authorization"] == "[redacted]")
            #expect(detail["event"]?["body"]?.string?.contains("my grandmother's kitchen") == true)
            #expect(detail["authorizer"]?["cached"] == false)
            #expect(detail["authorizer"]?["event"]?["authorizationToken"] == "[redacted]")
            #expect(detail["authorizer"]?["answer"]?["principalId"] == "bob")
            #expect(detail["authorizer"]?["answer"]?["context"]?["tier"] == "premium")
            #expect(detail["response"]?["status"] == 200)
            let body = try JSONParser.parse(detail["response"]?["body"]?.string ?? "")
            #expect(body["usage"]?["used"] == 1)
            let second = try await served.send(.GET, console, path: "api/requests/2").json
            #expect(second["summary"]?["authorizer"] == "cached")
            #expect(second["authorizer"]?["cached"] == true)
            #expect(second["authorizer"]?["event"] == .null)
            let list = try await served.send(.GET, console, path: "api/requests").json
            #expect(list["requests"]?.array?.map { $0["id"] } == [1, 2])
        }
    }

    @Test("Users: the free-tier story within an hour shows month 2/5, day 2/3, hour 2/2 and the refusal of the day")
    func users() async throws {
        try await ServeFixture.run(Self.settings()) { served in
            let console = try #require(served.endpoints.console)
            let alice = try ServeFixture.token("alice")
            #expect(try await served.generate(token: alice).status == 200)
            #expect(try await served.generate(token: alice).status == 200)
            let refused = try await served.generate(token: alice)
            #expect(refused.status == 429)
            #expect(try refused.json["window"] == "hour")
            #expect(try await served.generate(token: try ServeFixture.token("carol", tier: "premium")).status == 200)
            let before = served.stack.memoryTable?.snapshot().count
            let users = try await served.send(.GET, console, path: "api/users").json
            #expect(users["now"] == "2027-01-15T08:10:00Z")
            #expect(users["today"] == "2027-01-15")
            let rows = users["users"]?.array ?? []
            #expect(rows.map { $0["userId"] } == ["alice", "carol"])
            #expect(rows.first?["tier"] == "free")
            #expect(rows.first?["month"]?["used"] == 2)
            #expect(rows.first?["month"]?["limit"] == 5)
            #expect(rows.first?["month"]?["resetsAt"] == "2027-02-01T00:00:00Z")
            #expect(rows.first?["day"] == ["used": 2, "limit": 3, "remaining": 1, "resetsAt": "2027-01-16T00:00:00Z"])
            #expect(rows.first?["hour"] == ["used": 2, "limit": 2, "remaining": 0, "resetsAt": "2027-01-15T09:00:00Z"])
            #expect(rows.last?["tier"] == "premium")
            #expect(rows.last?["hour"]?["limit"] == 20)
            let day = try await served.send(.GET, console, path: "api/refused?date=2027-01-15").json
            #expect(day["users"]?.array?.map { $0["userId"] } == ["alice"])
            #expect(day["users"]?.array?.first?["window"] == "hour")
            #expect(day["users"]?.array?.first?["blockedUntil"] == "2027-01-15T09:00:00Z")
            let other = try await served.send(.GET, console, path: "api/refused?date=2027-01-14").json
            #expect(other["users"] == [])
            #expect(served.stack.memoryTable?.snapshot().count == before)
        }
    }

    @Test("Table: every item in key order, or one partition's, as DynamoDB JSON")
    func table() async throws {
        try await ServeFixture.run(Self.settings()) { served in
            let console = try #require(served.endpoints.console)
            #expect(try await served.generate(token: try ServeFixture.token("alice")).status == 200)
            #expect(try await served.generate(token: try ServeFixture.token("bob")).status == 200)
            let all = try await served.send(.GET, console, path: "api/table").json
            #expect(all["count"] == 6)
            #expect(all["truncated"] == false)
            let alice = try await served.send(.GET, console, path: "api/table?pk=USER%23\(userKey("alice"))").json
            let keys = alice["items"]?.array?.map { $0["SK"]?["S"] }
            #expect(keys == ["RATELIMIT#2027-01-15", "RATELIMIT#2027-01-15T08", "USAGE#2027-01"])
            #expect(alice["items"]?.array?.last?["interviewCount"] == ["N": "1"])
            let nobody = try await served.send(.GET, console, path: "api/table?pk=USER%23nobody").json
            #expect(nobody["count"] == 0)
        }
    }

    @Test("Bad requests get a clear error and change nothing: POST, a bad date, an unknown request or page")
    func badRequests() async throws {
        try await ServeFixture.run(Self.settings()) { served in
            let console = try #require(served.endpoints.console)
            #expect(try await served.generate(token: try ServeFixture.token("alice")).status == 200)
            let before = served.stack.memoryTable?.snapshot()
            let post = try await served.send(.POST, console, path: "api/users", body: Array("{}".utf8))
            #expect(post.status == 405)
            #expect(post.header("Allow") == "GET, HEAD")
            #expect(try post.json["error"] == "the console only reads: use GET")
            let delete = try await served.send(.DELETE, console, path: "api/table?pk=USER%23\(userKey("alice"))")
            #expect(delete.status == 405)
            for date in ["yesterday", "2027-1-15", "", "2027-01-15%3Cscript%3E"] {
                let answer = try await served.send(.GET, console, path: "api/refused?date=\(date)")
                #expect(answer.status == 400)
                #expect(try answer.json["error"] == "date must be a UTC date YYYY-MM-DD, as ?date=2026-11-17")
            }
            #expect(try await served.send(.GET, console, path: "api/refused").status == 400)
            let unknown = try await served.send(.GET, console, path: "api/requests/999")
            #expect(unknown.status == 404)
            #expect(try unknown.json["error"] == "no request 999 is kept")
            #expect(try await served.send(.GET, console, path: "api/requests/x").status == 404)
            let page = try await served.send(.GET, console, path: "nowhere")
            #expect(page.status == 404)
            #expect(served.stack.memoryTable?.snapshot() == before)
        }
    }

    @Test("The page and its files are served with a policy that runs no inline script and loads nothing from elsewhere")
    func page() async throws {
        try await ServeFixture.run(Self.settings()) { served in
            let console = try #require(served.endpoints.console)
            let index = try await served.send(.GET, console, path: "")
            #expect(index.status == 200)
            #expect(index.header("Content-Type") == "text/html; charset=utf-8")
            #expect(index.text.contains("<script src=\"/console.js\" defer></script>"))
            #expect(index.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
            #expect(index.header("X-Content-Type-Options") == "nosniff")
            let script = try await served.send(.GET, console, path: "console.js")
            #expect(script.status == 200)
            #expect(script.header("Content-Type") == "text/javascript; charset=utf-8")
            #expect(!script.text.contains("innerHTML"))
            #expect(try await served.send(.GET, console, path: "console.css").status == 200)
        }
    }

    @Test("The user pool page: each user's sub, email, status, tier and groups; without a pool, 404 saying so")
    func userPool() async throws {
        var configuration = Self.settings()
        configuration.ports[.cognito] = 0
        try await ServeFixture.run(configuration) { served in
            let console = try #require(served.endpoints.console)
            let pool = try #require(served.stack.localAccounts.pool)
            let user = try pool.adminCreateUser(
                username: "ada@example.com", attributes: [("email", "ada@example.com")], temporaryPassword: nil)
            try pool.adminUpdateUserAttributes(
                username: user.sub, attributes: [("custom:subscription_tier", "premium")])
            try pool.adminAddUserToGroup(username: user.sub, group: "premium_tier")
            let answer = try await served.send(.GET, console, path: "api/pool")
            #expect(answer.status == 200)
            let listed = try #require(try answer.json["users"]?.array)
            #expect(listed.count == 1)
            #expect(listed.first?["sub"] == .string(user.sub))
            #expect(listed.first?["email"] == "ada@example.com")
            #expect(listed.first?["tier"] == "premium")
            #expect(listed.first?["groups"] == ["premium_tier"])
            #expect(try answer.json["groups"] == ["free_tier", "premium_tier", "blocked"])
        }
        try await ServeFixture.run(Self.settings()) { served in
            let answer = try await served.send(.GET, try #require(served.endpoints.console), path: "api/pool")
            #expect(answer.status == 404)
            #expect(try answer.json["error"] == "serve runs no local user pool (--no-cognito)")
        }
    }

    @Test("A user id holding markup is kept as it is in the JSON, which the page shows as text")
    func markupInUserID() async throws {
        try await ServeFixture.run(Self.settings()) { served in
            let console = try #require(served.endpoints.console)
            let user = "<script>alert(1)</script>"
            #expect(try await served.generate(token: try ServeFixture.token(user)).status == 200)
            let users = try await served.send(.GET, console, path: "api/users")
            #expect(users.header("Content-Type") == "application/json")
            #expect(try users.json["users"]?.array?.first?["userId"] == .string(user))
            let list = try await served.send(.GET, console, path: "api/requests").json
            #expect(list["requests"]?.array?.first?["user"] == .string(user))
        }
    }

    @Test("Twenty concurrent requests each appear once in the list and the live stream, numbered 1 to 20")
    func concurrent() async throws {
        try await ServeFixture.run(Self.settings()) { served in
            let console = try #require(served.endpoints.console)
            let stream = try await ConsoleStream.open(console)
            let token = try ServeFixture.token("dave", tier: "premium")
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 { group.addTask { try await served.generate(token: token).status } }
                for try await status in group { #expect(status == 200) }
            }
            let events = try await stream.next(20, within: Patience.hang)
            let run = try #require(served.server.console?.feed.run)
            #expect(Set(events.compactMap(\.id)) == Set((1...20).map { "\(run)-\($0)" }))
            let list = try await served.send(.GET, console, path: "api/requests").json
            #expect(list["requests"]?.array?.count == 20)
            let units = list["requests"]?.array?.compactMap { $0["units"]?.int }.reduce(0, +)
            #expect(units == 20)
        }
    }

    @Test("Without a console port (--no-console) there is no console and the gateway has no observer")
    func off() async throws {
        try await ServeFixture.run { served in
            #expect(served.endpoints.console == nil)
            #expect(served.server.console == nil)
            #expect(served.server.gateway.configuration.observers.isEmpty)
        }
    }
}

/// An open `GET /api/events`, read event by event.
final class ConsoleStream: Sendable {
    struct Event: Sendable {
        var id: String?
        var name: String?
        var data: String
    }

    let contentType: String?
    private let events: AsyncThrowingStream<Event, any Error>
    private let reader: Task<Void, Never>

    private init(contentType: String?, events: AsyncThrowingStream<Event, any Error>, reader: Task<Void, Never>) {
        self.contentType = contentType
        self.events = events
        self.reader = reader
    }

    deinit { reader.cancel() }

    static func open(_ console: HTTPURL, lastEventID: String? = nil) async throws -> ConsoleStream {
        guard let url = HTTPURL(string: console.absoluteString + "api/events") else {
            throw FixtureError("not a URL: \(console.absoluteString)api/events")
        }
        let response = try await StreamingGet.open(url, headers: lastEventID.map { [("Last-Event-ID", $0)] } ?? [])
        let (events, continuation) = AsyncThrowingStream.makeStream(of: Event.self)
        let reader = Task {
            var text = ""
            do {
                for try await bytes in response.body {
                    text += String(decoding: bytes, as: UTF8.self)
                    while let end = text.range(of: "\n\n") {
                        let block = text[..<end.lowerBound]
                        text = String(text[end.upperBound...])
                        var event = Event(data: "")
                        for line in block.split(separator: "\n") {
                            if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)) }
                            if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)) }
                            if line.hasPrefix("data: ") { event.data += line.dropFirst(6) }
                        }
                        if event.name == "exchange" || event.name == "rebuild" { continuation.yield(event) }
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        return ConsoleStream(contentType: response.headers.first(name: "Content-Type"), events: events, reader: reader)
    }

    /// The next `count` events, failing when they have not all come within `limit`.
    func next(_ count: Int, within limit: Duration) async throws -> [Event] {
        let events = self.events
        return try await withThrowingTaskGroup(of: [Event]?.self) { group in
            group.addTask {
                var collected: [Event] = []
                for try await event in events {
                    collected.append(event)
                    if collected.count == count { break }
                }
                return collected
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            guard let first, first.count == count else {
                throw FixtureError("the live list sent \(first?.count ?? 0) of \(count) events within \(limit)")
            }
            return first
        }
    }
}
