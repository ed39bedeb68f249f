import EmulatorKit
import Foundation
import HTTPTypes
import Hummingbird
import InkraJSON
import NIOCore

/// `serve`'s console: a few pages in the browser (Requests, Users, Table) and the JSON they read.
/// It only reads, and answers nothing but `GET` and `HEAD` — except `POST /api/clock`, which moves
/// a virtual clock (`--clock virtual`) as `POST /_inkra/clock` does, and only with a JSON body (a
/// form of another site cannot send one without a CORS preflight, which the console never allows).
///
/// | path | answer |
/// | --- | --- |
/// | `/` | the page (`index.html`, with `console.css` and `console.js`) |
/// | `/api/requests` | the kept requests, oldest first |
/// | `/api/requests/N` | all of request N: the event, the authorizer's answer, the response |
/// | `/api/events` | the live list: server-sent events, one `exchange` per request, one `rebuild` per line of `--watch`'s rebuilds |
/// | `/api/rebuilds` | the latest lines of `--watch`'s rebuilds (started, succeeded, failed with the compiler's first lines) |
/// | `/api/clock` | the stack's time and whether its clock is virtual; `POST {"advance": "PT1H"}` moves a virtual one |
/// | `/api/users` | each user's month, day and hour against the limits |
/// | `/api/refused?date=YYYY-MM-DD` | the users refused that day (the index query) |
/// | `/api/table?pk=USER%23alice` | the table's items, of one partition when `pk` is given |
/// | `/api/pool` | the local user pool's users (status, tier, groups) and groups, when it runs |
package struct ConsoleServer: Sendable {
    /// The gateway's traffic.
    package let feed: ConsoleFeed
    let reader: ConsoleReader
    /// The stack's clock, as `/_inkra/clock` serves it.
    let clock: ClockEndpoint?

    /// The files the page is made of, by path.
    static let assets: [String: (file: String, type: String)] = [
        "/index.html": ("index.html", "text/html; charset=utf-8"),
        "/console.css": ("console.css", "text/css; charset=utf-8"),
        "/console.js": ("console.js", "text/javascript; charset=utf-8"),
    ]

    /// A console over a stack, showing what `feed` observes; `clock` reads and moves the stack's clock.
    package init(stack: EmulatorStack, feed: ConsoleFeed, clock: ClockEndpoint? = nil) {
        self.feed = feed
        self.clock = clock
        reader = ConsoleReader(stack: stack, feed: feed)
    }

    /// Answers one request.
    func respond(_ request: Request, context: ServeRequestContext) async -> Response {
        if request.uri.path == "/api/clock" { return await clock(request, context: context) }
        guard request.method == .get || request.method == .head else {
            return Self.json(405, ConsoleJSON.error("the console only reads: use GET"), extra: [.allow: "GET, HEAD"])
        }
        let path = request.uri.path
        let query = request.uri.queryParameters
        do {
            switch path {
            case "/api/requests":
                return Self.json(200, ["requests": .array(feed.entries.map(ConsoleJSON.summary))])
            case "/api/events":
                return events(after: resumePoint(request.headers[.lastEventID]))
            case "/api/rebuilds":
                return Self.json(200, ["rebuilds": .array(feed.rebuilds.map(ConsoleJSON.rebuild))])
            case "/api/users":
                return Self.json(200, try await reader.users())
            case "/api/refused":
                guard let date = query.get("date"), ConsoleReader.isDate(date) else {
                    return Self.json(400, ConsoleJSON.error("date must be a UTC date YYYY-MM-DD, as ?date=2026-11-17"))
                }
                return Self.json(200, try await reader.refused(on: date))
            case "/api/pool":
                guard let pool = reader.pool else {
                    return Self.json(404, ConsoleJSON.error("serve runs no local user pool (--no-cognito)"))
                }
                return Self.json(200, ConsoleJSON.pool(pool))
            case "/api/table":
                let partition = query.get("pk").flatMap { $0.isEmpty ? nil : String($0) }
                return Self.json(200, try await reader.items(partition: partition))
            default:
                if path.hasPrefix("/api/requests/") {
                    let number = Int(path.dropFirst("/api/requests/".count))
                    guard let number, let entry = feed.entry(number) else {
                        return Self.json(404, ConsoleJSON.error("no request \(path.dropFirst(14)) is kept"))
                    }
                    return Self.json(200, ConsoleJSON.detail(entry))
                }
                return Self.asset(path)
            }
        } catch {
            return Self.json(503, ConsoleJSON.error("the table could not be read: \(error)"))
        }
    }

    /// The live list: what was kept after `after`, then each new request, until shutdown.
    private func events(after: Int) -> Response {
        let stream = feed.subscribe(after: after)
        let headers: HTTPFields = [
            .contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store",
            .xContentTypeOptions: "nosniff",
        ]
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                let hello: JSONValue = ["run": .string(feed.run)]
                try await writer.write(ByteBuffer(string: "retry: 1000\nevent: hello\ndata: \(hello.jsonString)\n\n"))
                for await item in stream {
                    switch item {
                    case .exchange(let entry):
                        let data = ConsoleJSON.summary(entry).jsonString
                        try await writer.write(
                            ByteBuffer(string: "id: \(feed.run)-\(entry.sequence)\nevent: exchange\ndata: \(data)\n\n"))
                    case .rebuild(let rebuild):
                        let data = ConsoleJSON.rebuild(rebuild).jsonString
                        try await writer.write(ByteBuffer(string: "event: rebuild\ndata: \(data)\n\n"))
                    }
                }
                try await writer.finish(nil)
            })
    }

    /// `/api/clock`: `GET` reads the stack's time, `POST` (a JSON body only) moves a virtual clock.
    private func clock(_ request: Request, context: ServeRequestContext) async -> Response {
        guard let clock else { return Self.json(404, ConsoleJSON.error("serve's clock is not served here")) }
        guard [HTTPRequest.Method.get, .head, .post].contains(request.method) else {
            return Self.json(405, ConsoleJSON.error("use GET or POST"), extra: [.allow: "GET, HEAD, POST"])
        }
        guard
            request.method != .post || request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true
        else {
            return Self.json(
                415, ConsoleJSON.error("POST /api/clock takes a JSON body (Content-Type: application/json)"))
        }
        guard var local = await LocalHTTPRequest.read(request, context: context, limit: 4096) else {
            return Self.json(413, ConsoleJSON.error("the body must be at most 4096 bytes"))
        }
        if local.method == "HEAD" { local.method = "GET" }
        let answer = clock.respond(local)
        return Self.response(answer.status, type: "application/json", body: answer.body)
    }

    /// Where a reconnecting live list resumes: after the number of its `Last-Event-ID` (`RUN-N`)
    /// when that names this run, else from the start.
    func resumePoint(_ lastEventID: String?) -> Int {
        guard let lastEventID, let dash = lastEventID.lastIndex(of: "-"), lastEventID[..<dash] == feed.run else {
            return 0
        }
        return Int(lastEventID[lastEventID.index(after: dash)...]) ?? 0
    }

    static func asset(_ path: String) -> Response {
        guard let (file, type) = assets[path == "/" ? "/index.html" : path] else {
            return json(404, ConsoleJSON.error("no page \(path); the console is at /"))
        }
        guard let url = Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Assets"),
            let data = try? Data(contentsOf: url)
        else {
            return json(500, ConsoleJSON.error("the console's \(file) is missing from the build"))
        }
        return response(200, type: type, body: Array(data))
    }

    static func json(_ status: Int, _ value: JSONValue, extra: HTTPFields = [:]) -> Response {
        response(status, type: "application/json", body: value.jsonBytes, extra: extra)
    }

    static func response(_ status: Int, type: String, body: [UInt8], extra: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [
            .contentType: type, .cacheControl: "no-store", .xContentTypeOptions: "nosniff",
            // Nothing from elsewhere and no inline script: markup that slipped into a page would not run.
            .contentSecurityPolicy: "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:",
        ]
        headers.append(contentsOf: extra)
        return Response(
            status: HTTPResponse.Status(code: status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}

extension ConsoleServer: ServeEndpoint {
    var role: EndpointRole { .console }

    /// A graceful shutdown ends the live lists first, which would hold it up.
    func finish() { feed.finish() }
}

extension HTTPField.Name {
    fileprivate static let lastEventID = HTTPField.Name("Last-Event-ID")!
    fileprivate static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
}
