import Foundation
import HTTPText
import InkraTestSupport
import NIOHTTP1
import NIOSSL
import OutboundHTTP
import Testing

@Suite("OutboundHTTPClient")
struct OutboundHTTPClientTests {
    /// A client of its own, so the pool of one test is not another's.
    static func client(_ tls: TLSConfiguration = .makeClientConfiguration()) -> OutboundHTTPClient {
        OutboundHTTPClient(tlsConfiguration: tls)
    }

    static func url(_ text: String) throws -> HTTPURL { try #require(HTTPURL(string: text)) }

    /// A timeout for requests whose test is not about time: for hangs only (``Patience``).
    static let patient = Patience.hang

    /// The error a request ended with.
    static func failure(
        _ client: OutboundHTTPClient, _ request: OutboundRequest, timeout: Duration = patient,
        limit: Int = 1 << 20
    ) async throws -> OutboundHTTPError {
        do {
            let response = try await client.execute(request, timeout: timeout, maximumResponseBytes: limit)
            Issue.record("expected an error, got HTTP \(response.status)")
            throw CancellationError()
        } catch let error as OutboundHTTPError {
            return error
        }
    }

    @Test("a POST carries its method, path, query, headers and body; the answer comes back whole")
    func post() async throws {
        let server = try await StubHTTPServer { request in
            .json(201, "{\"seen\":\"\(request.method) \(request.uri) \(request.body.count)\"}")
        }
        defer { server.shutdown() }
        let client = Self.client()
        let response = try await client.execute(
            OutboundRequest(
                method: .POST, url: Self.url("http://127.0.0.1:\(server.port)/a/b%20c?x=1&y=2"),
                headers: [("X-Amz-Target", "DynamoDB_20120810.GetItem"), ("Content-Length", "999")],
                body: Array("{\"k\":1}".utf8)),
            timeout: Self.patient)
        #expect(response.status == 201)
        #expect(String(decoding: response.body, as: UTF8.self) == "{\"seen\":\"POST /a/b%20c?x=1&y=2 7\"}")
        #expect(response.headers["content-type"] == ["application/json"])
        let seen = try #require(server.requests.first)
        let headers = HTTPHeaders(seen.headers)
        #expect(headers["Host"] == ["127.0.0.1:\(server.port)"])
        #expect(headers["Content-Length"] == ["7"])
        #expect(headers["X-Amz-Target"] == ["DynamoDB_20120810.GetItem"])
    }

    @Test("a Host header the caller signed is sent as given, not twice")
    func callerHost() async throws {
        let server = try await StubHTTPServer { _ in .json(200, "{}") }
        defer { server.shutdown() }
        _ = try await Self.client().execute(
            OutboundRequest(
                url: Self.url("http://127.0.0.1:\(server.port)/"), headers: [("host", "dynamodb.local:\(server.port)")]),
            timeout: Self.patient)
        let headers = HTTPHeaders(try #require(server.requests.first).headers)
        #expect(headers["Host"] == ["dynamodb.local:\(server.port)"])
    }

    @Test("requests one after another share one keep-alive connection")
    func keepAlive() async throws {
        let server = try await StubHTTPServer { request in .json(200, "{\"n\":\"\(request.uri)\"}") }
        defer { server.shutdown() }
        let client = Self.client()
        for index in 0..<5 {
            let response = try await client.execute(
                OutboundRequest(url: Self.url("http://127.0.0.1:\(server.port)/\(index)")), timeout: Self.patient)
            #expect(String(decoding: response.body, as: UTF8.self) == "{\"n\":\"/\(index)\"}")
        }
        #expect(server.connectionCount == 1)
    }

    @Test("fifty requests at once each get their own answer")
    func concurrent() async throws {
        let server = try await StubHTTPServer { request in .json(200, "{\"n\":\"\(request.uri)\"}") }
        defer { server.shutdown() }
        let client = Self.client()
        let url = "http://127.0.0.1:\(server.port)"
        let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<50 {
                group.addTask {
                    let response = try await client.execute(
                        OutboundRequest(url: Self.url("\(url)/\(index)")), timeout: Self.patient)
                    return (index, String(decoding: response.body, as: UTF8.self))
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(answers.count == 50)
        for (index, body) in answers { #expect(body == "{\"n\":\"/\(index)\"}") }
        #expect(server.connectionCount <= 50)
    }

    @Test("with two connections allowed, thirty requests at once share two connections")
    func connectionLimit() async throws {
        let server = try await StubHTTPServer { request in
            try? await Task.sleep(for: .milliseconds(20))
            return .json(200, "{\"n\":\"\(request.uri)\"}")
        }
        defer { server.shutdown() }
        let client = OutboundHTTPClient(maximumConnectionsPerEndpoint: 2)
        let url = "http://127.0.0.1:\(server.port)"
        let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<30 {
                group.addTask {
                    let response = try await client.execute(
                        OutboundRequest(url: Self.url("\(url)/\(index)")), timeout: Self.patient)
                    return String(decoding: response.body, as: UTF8.self) == "{\"n\":\"/\(index)\"}"
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(answered == 30)
        #expect(server.connectionCount == 2)
    }

    @Test(
        "a request that waits for a busy endpoint's connection past its timeout fails as timedOut",
        .timeLimit(.minutes(10)))
    func waitForConnection() async throws {
        // The first answer is held until the second request has failed: the connection cannot come
        // free first, however long a busy machine takes.
        let held = Gate()
        let server = try await StubHTTPServer { _ in
            await held.wait()
            return .json(200, "{}")
        }
        defer { server.shutdown() }
        defer { held.open() }
        let client = OutboundHTTPClient(maximumConnectionsPerEndpoint: 1)
        let url = try Self.url("http://127.0.0.1:\(server.port)/")
        var arrivals = server.arrivals.makeAsyncIterator()
        let first = Task { try await client.execute(OutboundRequest(url: url), timeout: Self.patient) }
        _ = await arrivals.next()
        let error = try await Self.failure(client, OutboundRequest(url: url), timeout: .milliseconds(200))
        #expect(error.code == .timedOut)
        #expect(error.message.contains("no connection to http://127.0.0.1:\(server.port) came free"))
        held.open()
        #expect(try await first.value.status == 200)
        #expect(server.connectionCount == 1)
    }

    @Test("an answer slower than the timeout fails as timedOut, naming the endpoint", .timeLimit(.minutes(10)))
    func timeout() async throws {
        // Answered only once the client has given up, so the answer can never beat the timeout.
        let held = Gate()
        let server = try await StubHTTPServer { _ in
            await held.wait()
            return .json(200, "{}")
        }
        defer { server.shutdown() }
        defer { held.open() }
        let error = try await Self.failure(
            Self.client(), OutboundRequest(url: Self.url("http://127.0.0.1:\(server.port)/slow")),
            timeout: .milliseconds(200))
        #expect(error.code == .timedOut)
        #expect(error.message.contains("http://127.0.0.1:\(server.port)"))
    }

    @Test("a refused connection fails as connectFailed, naming host and port")
    func refused() async throws {
        // A port bound and never listening, held until the end: a port merely closed could be
        // given to another test's server meanwhile, which would answer.
        let refusing = try #require(RefusingPort())
        let port = refusing.port
        let error = try await Self.failure(Self.client(), OutboundRequest(url: Self.url("http://127.0.0.1:\(port)/")))
        #expect(error.code == .connectFailed)
        #expect(error.message.contains("127.0.0.1:\(port)"))
        withExtendedLifetime(refusing) {}
    }

    @Test("a body over the limit fails as responseTooLarge, naming the limit")
    func tooLarge() async throws {
        let server = try await StubHTTPServer { _ in .json(200, String(repeating: "x", count: 2000)) }
        defer { server.shutdown() }
        let error = try await Self.failure(
            Self.client(), OutboundRequest(url: Self.url("http://127.0.0.1:\(server.port)/")), limit: 1000)
        #expect(error.code == .responseTooLarge)
        #expect(error.message.contains("1000 bytes"))
    }

    /// An answer written byte for byte, what the client must read from it, and how many
    /// connections the server should see for `requests` requests one after another.
    struct RawCase: Sendable, CustomTestStringConvertible {
        var name: String
        var answer: String
        var closeAfterAnswer: Bool
        var requests: Int
        var body: String
        var connections: Int

        var testDescription: String { name }
    }

    static let rawCases = [
        RawCase(
            name: "a chunked answer is decoded, on one connection",
            answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
            closeAfterAnswer: false, requests: 2, body: "hello world", connections: 1),
        RawCase(
            name: "an informational 1xx answer before the final one is skipped, and the connection stays in step",
            answer: "HTTP/1.1 103 Early Hints\r\nLink: </style.css>\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfinal",
            closeAfterAnswer: false, requests: 2, body: "final", connections: 1),
        RawCase(
            name: "an answer delimited by closing the connection is read to the end",
            answer: "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end",
            closeAfterAnswer: true, requests: 2, body: "until the end", connections: 2),
        RawCase(
            name: "a keep-alive connection the server then closes is not used again",
            answer: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
            closeAfterAnswer: true, requests: 3, body: "ok", connections: 3),
    ]

    @Test("answers framed every way HTTP/1.1 allows are read whole", arguments: rawCases)
    func rawAnswer(_ rawCase: RawCase) async throws {
        let server = try await RawAnswerServer(answer: rawCase.answer, closeAfterAnswer: rawCase.closeAfterAnswer)
        defer { server.shutdown() }
        let client = Self.client()
        let url = try Self.url("http://127.0.0.1:\(server.port)/")
        for _ in 0..<rawCase.requests {
            let response = try await client.execute(OutboundRequest(url: url), timeout: Self.patient)
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == rawCase.body)
            // The server closes the connection after its answer: the next request goes out once the
            // client has seen that close, not on a connection it has not yet seen closing.
            if rawCase.closeAfterAnswer { try await client.idleConnectionsClosed(to: url) }
        }
        #expect(server.connectionCount == rawCase.connections)
    }

    @Test("a connection closed before any answer fails as connectionClosed")
    func closedBeforeAnswer() async throws {
        let server = try await RawAnswerServer(answer: "", closeAfterAnswer: true)
        defer { server.shutdown() }
        let error = try await Self.failure(
            Self.client(), OutboundRequest(url: Self.url("http://127.0.0.1:\(server.port)/")))
        #expect(error.code == .connectionClosed)
    }

    @Test("an answer that is not HTTP fails as malformedResponse")
    func notHTTP() async throws {
        let server = try await RawAnswerServer(answer: "SSH-2.0-OpenSSH_9.2\r\n\r\n", closeAfterAnswer: false)
        defer { server.shutdown() }
        let error = try await Self.failure(
            Self.client(), OutboundRequest(url: Self.url("http://127.0.0.1:\(server.port)/")))
        #expect(error.code == .malformedResponse)
    }

    @Test(
        "URLs with a host that are not http or https are refused before connecting",
        arguments: ["ftp://example.com/file", "ws://127.0.0.1:9/socket", "gopher://example.com/"])
    func invalidURL(_ text: String) async throws {
        let error = try await Self.failure(Self.client(), OutboundRequest(url: Self.url(text)))
        #expect(error.code == .invalidURL)
        #expect(error.message.contains(text))
    }

    @Test(
        "URLs without a host make no request at all: HTTPURL refuses them",
        arguments: ["file:///etc/passwd", "http:///path-only", "mailto:someone@example.com"])
    func noHost(_ text: String) {
        #expect(HTTPURL(string: text) == nil)
    }

    @Test("after shutdown a request fails as shutDown")
    func shutDown() async throws {
        let client = Self.client()
        await client.shutdown()
        let error = try await Self.failure(client, OutboundRequest(url: Self.url("http://127.0.0.1:9/")))
        #expect(error.code == .shutDown)
    }

    @Test("cancelling the task ends a request that is waiting for its answer", .timeLimit(.minutes(10)))
    func cancellation() async throws {
        // Answered only once the test is over, so the cancellation is what ends the request.
        let held = Gate()
        let server = try await StubHTTPServer { _ in
            await held.wait()
            return .json(200, "{}")
        }
        defer { server.shutdown() }
        defer { held.open() }
        let client = Self.client()
        let url = try Self.url("http://127.0.0.1:\(server.port)/")
        var arrivals = server.arrivals.makeAsyncIterator()
        let task = Task { try await client.execute(OutboundRequest(url: url), timeout: Patience.hang) }
        _ = await arrivals.next()  // the request is on the wire, waiting for its answer
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }
}

@Suite("OutboundHTTPClient over TLS")
struct OutboundHTTPClientTLSTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// A server with the fixture certificate, issued to `localhost` only.
    static func server() async throws -> StubHTTPServer {
        let certificate = try NIOSSLCertificate(
            file: fixtures.appendingPathComponent("localhost-cert.pem").path, format: .pem)
        let key = try NIOSSLPrivateKey(file: fixtures.appendingPathComponent("localhost-key.pem").path, format: .pem)
        let context = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: [.certificate(certificate)], privateKey: .privateKey(key)))
        return try await StubHTTPServer(tls: context) { request in .json(200, "{\"over\":\"tls \(request.uri)\"}") }
    }

    /// A client that trusts the fixture certificate and nothing else.
    static func trustingClient() throws -> OutboundHTTPClient {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .file(fixtures.appendingPathComponent("localhost-cert.pem").path)
        return OutboundHTTPClient(tlsConfiguration: configuration)
    }

    @Test("https to a server whose certificate is trusted and names the host")
    func trusted() async throws {
        let server = try await Self.server()
        defer { server.shutdown() }
        let client = try Self.trustingClient()
        for _ in 0..<2 {
            let response = try await client.execute(
                OutboundRequest(url: OutboundHTTPClientTests.url("https://localhost:\(server.port)/jwks.json")),
                timeout: OutboundHTTPClientTests.patient)
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "{\"over\":\"tls /jwks.json\"}")
        }
        #expect(server.connectionCount == 1)
    }

    @Test("a certificate the system does not trust fails as tlsFailed")
    func untrusted() async throws {
        let server = try await Self.server()
        defer { server.shutdown() }
        let error = try await OutboundHTTPClientTests.failure(
            OutboundHTTPClientTests.client(),
            OutboundRequest(url: OutboundHTTPClientTests.url("https://localhost:\(server.port)/")))
        #expect(error.code == .tlsFailed)
        #expect(error.message.contains("localhost:\(server.port)"))
    }

    @Test("a trusted certificate for another name fails as tlsFailed")
    func wrongName() async throws {
        let server = try await Self.server()
        defer { server.shutdown() }
        let error = try await OutboundHTTPClientTests.failure(
            try Self.trustingClient(),
            OutboundRequest(url: OutboundHTTPClientTests.url("https://127.0.0.1:\(server.port)/")))
        #expect(error.code == .tlsFailed)
    }
}
