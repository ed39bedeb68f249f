import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A URLProtocol that answers each request from a script, per host, so suites run in parallel:
/// each test talks to a host of its own (`StubProtocol.host()`), and the script says, request by
/// request, what the "server" answers.
final class StubProtocol: URLProtocol {
    /// One scripted answer.
    enum Reply: Sendable {
        case answer(status: Int, headers: [String: String], body: String)
        /// The request fails as a lost connection does (`URLError`).
        case fail(URLError.Code)

        static func json(_ status: Int, _ body: String, headers: [String: String] = [:]) -> Reply {
            .answer(
                status: status, headers: headers.merging(["Content-Type": "application/json"]) { a, _ in a }, body: body
            )
        }
    }

    /// What a request carried.
    struct Seen: Sendable {
        var method: String
        var path: String
        var headers: [String: String]
        var body: Data
    }

    private struct Script {
        var replies: [Reply]
        var seen: [Seen] = []
    }

    private static let scripts = Mutex([String: Script]())

    /// A new host answering `replies` in order (a request past the end gets a 599).
    static func host(_ replies: [Reply]) -> String {
        let host = "stub-\(UUID().uuidString.lowercased()).invalid"
        scripts.withLock { $0[host] = Script(replies: replies) }
        return host
    }

    /// The requests `host` received, in order.
    static func seen(_ host: String) -> [Seen] {
        scripts.withLock { $0[host]?.seen ?? [] }
    }

    /// A session whose requests this protocol answers.
    static func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubProtocol.self]
        return URLSession(configuration: configuration)
    }

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        let url = request.url!
        let host = url.host ?? ""
        let body = request.httpBody ?? request.httpBodyStream.map(Self.read) ?? Data()
        let seen = Seen(
            method: request.httpMethod ?? "GET", path: url.path,
            headers: request.allHTTPHeaderFields ?? [:], body: body)
        let reply: Reply = Self.scripts.withLock { scripts in
            scripts[host]?.seen.append(seen)
            guard var script = scripts[host], !script.replies.isEmpty else {
                return .answer(status: 599, headers: [:], body: "")
            }
            let reply = script.replies.removeFirst()
            script.seen = scripts[host]?.seen ?? []
            scripts[host] = script
            return reply
        }
        switch reply {
        case .answer(let status, let headers, let text):
            let response = HTTPURLResponse(
                url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
            client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            client?.urlProtocol(self, didLoad: Data(text.utf8))
            client?.urlProtocolDidFinishLoading(self)
        case .fail(let code):
            client?.urlProtocol(self, didFailWithError: URLError(code))
        }
    }

    override func stopLoading() {}

    private static func read(_ stream: InputStream) -> Data {
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while stream.hasBytesAvailable {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(buffer, count: count)
        }
        return data
    }
}
