import EmulatorKit
import EmulatorServer
import Foundation
import HTTPText
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime
import Logging
import NIOCore
import NIOHTTP1
import OutboundHTTP
import Synchronization

/// A `serve` stack on ephemeral loopback ports, an HTTP client, and what the server logged.
struct ServeFixture: Sendable {
    /// 2027-01-15T08:10:00Z: every request of a test falls in one hour.
    static let when = Timestamp(timeIntervalSince1970: 1_800_000_600)
    static let developmentKey: DevelopmentKey = {
        let directory = ChildProcess.repositoryRoot.appendingPathComponent("emulator/dev-keys")
        do { return try DevelopmentKey(directory: directory) } catch { fatalError("dev keys: \(error)") }
    }()

    let server: LocalServer
    let endpoints: ServeEndpoints
    let client: OutboundHTTPClient
    let accessLog: LogLines

    var stack: EmulatorStack { server.stack }

    /// Runs `body` against a fresh server; stops it gracefully afterwards.
    static func run(
        _ configuration: ServeConfiguration = settings(),
        _ body: (ServeFixture) async throws -> Void
    ) async throws {
        var options = EmulatorOptions(clock: { Timestamp.now })
        options.developmentKey = developmentKey
        options.now = when
        let logger = Logger(label: "inkra.serve-tests") { _ in
            InvocationLogHandler(upstream: SwiftLogNoOpLogHandler(), now: { when })
        }
        let stack = try await EmulatorStack(options: options, logger: logger)
        let lines = LogLines()
        let server = try await LocalServer(
            stack: stack, configuration: configuration,
            logger: Logger(label: "serve", factory: { _ in SwiftLogNoOpLogHandler() }),
            accessLog: { lines.append($0) })
        let (ready, readyContinuation) = AsyncStream.makeStream(of: ServeEndpoints.self)
        let running = Task {
            defer { readyContinuation.finish() }
            try await server.run { readyContinuation.yield($0) }
        }
        guard let endpoints = await ready.first(where: { _ in true }) else {
            try await running.value
            throw FixtureError("the server stopped before listening")
        }
        let client = OutboundHTTPClient(maximumConnectionsPerEndpoint: 64, maximumIdleConnectionsPerEndpoint: 64)
        let fixture = ServeFixture(server: server, endpoints: endpoints, client: client, accessLog: lines)
        do {
            try await body(fixture)
        } catch {
            await client.shutdown()
            await server.shutdown()
            _ = try? await running.value
            throw error
        }
        await client.shutdown()
        await server.shutdown()
        try await running.value
    }

    /// Ephemeral ports and an API set up so.
    static func settings(
        payload: ProxyRequest.Version = .v1, stage: String? = nil, authorizerCacheTTL: TimeInterval = 300,
        cors: CORSPolicy = CORSPolicy(), validatesBodies: Bool = false
    ) -> ServeConfiguration {
        var configuration = ServeConfiguration.ephemeral
        configuration.gateway.validatesBodies = validatesBodies
        configuration.gateway.payload = payload
        configuration.gateway.stage = stage
        configuration.gateway.authorizerCacheTTL = authorizerCacheTTL
        configuration.gateway.cors = cors
        return configuration
    }

    /// A development token.
    static func token(_ sub: String, tier: String? = nil, groups: [String]? = nil) throws -> String {
        try DevelopmentTokens.mint(with: developmentKey, claims: .init(sub: sub, tier: tier, groups: groups), at: when)
    }

    /// Sends a request and reads the whole answer.
    func send(
        _ method: HTTPMethod, _ url: HTTPURL, path: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) async throws -> Answer {
        guard let target = HTTPURL(string: url.absoluteString + path) else {
            throw FixtureError("not a URL: \(url.absoluteString + path)")
        }
        let request = OutboundRequest(method: method, url: target, headers: headers, body: body ?? [])
        let response = try await client.execute(request, timeout: Patience.hang, maximumResponseBytes: 16 << 20)
        return Answer(
            status: response.status, headers: response.headers.map { ($0.name, $0.value) }, body: response.body)
    }

    /// `POST /questions` with a token.
    func generate(token: String?, body: String = #"{"topic":"my grandmother's kitchen","length":"short"}"#)
        async throws -> Answer
    {
        var headers = [("Content-Type", "application/json")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return try await send(.POST, endpoints.api, path: "/questions", headers: headers, body: Array(body.utf8))
    }
}

/// A response as the client read it.
struct Answer: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    func headerValues(_ name: String) -> [String] {
        headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    var json: JSONValue {
        get throws { try JSONParser.parse(body) }
    }
}

/// Lines collected from the server.
final class LogLines: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
