import Foundation
import InkraTestSupport
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The built `inkra-emulator serve`, started for one test on free ports with a virtual clock, and
/// the development tokens it trusts (`inkra-emulator token`), minted at its clock's time.
final class ServedStack: Sendable {
    let server: RunningChild
    /// API Gateway's address.
    let api: URL

    private init(server: RunningChild, api: URL) {
        self.server = server
        self.api = api
    }

    /// Starts `serve` with the payload `v1` (REST API) or `v2` (HTTP API), its virtual clock at `now`.
    static func start(payload: String, now: String) async throws -> ServedStack {
        let server = try RunningChild(
            ChildProcess.built("inkra-emulator"),
            [
                "serve", "--port", "0", "--lambda-port", "0", "--runtime-api-port", "0", "--dynamodb-port", "0",
                "--no-access-log", "--no-console", "--no-cognito", "--no-throttle", "--payload", payload,
                "--clock", "virtual", "--now", now,
            ], includingStandardError: true)
        guard let banner = await server.line(containing: "API Gateway"),
            let address = banner.split(separator: " ").first(where: { $0.hasPrefix("http://") }),
            let api = URL(string: String(address)),
            await server.line(containing: "Press Ctrl-C") != nil
        else {
            _ = await server.stop(with: SIGKILL)
            throw StackError("serve did not start: \(server.lines)")
        }
        return ServedStack(server: server, api: api)
    }

    /// Stops `serve`.
    func stop() async {
        _ = await server.stop()
    }

    /// Runs `body` with a `serve` started as ``start(payload:now:)``, and stops it afterwards,
    /// whether `body` returns or throws.
    static func with(payload: String, now: String, _ body: (ServedStack) async throws -> Void) async throws {
        let stack = try await start(payload: payload, now: now)
        do {
            try await body(stack)
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    /// The stack's time (`GET /_inkra/clock`), as ISO 8601.
    func now() async throws -> String {
        try await clock(nil)
    }

    /// Moves the virtual clock forward by an ISO 8601 duration (`PT1H`).
    func advance(_ duration: String) async throws {
        _ = try await clock(#"{"advance":"\#(duration)"}"#)
    }

    private func clock(_ body: String?) async throws -> String {
        var request = URLRequest(url: api.appendingPathComponent("_inkra/clock"))
        if let body {
            request.httpMethod = "POST"
            request.httpBody = Data(body.utf8)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200,
            let now = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["now"] as? String
        else { throw StackError("/_inkra/clock answered \(String(decoding: data, as: UTF8.self))") }
        return now
    }

    /// A token provider for user `sub`, as the app's sign-in SDK is one: a cached id token, and a
    /// fresh one, minted at the stack's time, when none is cached or `forceRefresh` asks.
    func tokens(for sub: String) -> TokenMinter { TokenMinter(stack: self, sub: sub) }
}

/// Mints development tokens for one user, at the stack's time, and counts them.
final class TokenMinter: Sendable {
    private let stack: ServedStack
    private let sub: String
    private let state = Mutex((cached: String?.none, minted: 0))

    init(stack: ServedStack, sub: String) {
        self.stack = stack
        self.sub = sub
    }

    /// How many tokens were minted.
    var minted: Int { state.withLock { $0.minted } }

    /// The provider `InkraClient` takes.
    func token(forceRefresh: Bool) async throws -> String {
        if !forceRefresh, let cached = state.withLock({ $0.cached }) { return cached }
        let now = try await stack.now()
        let result = try await ChildProcess.run(
            ChildProcess.built("inkra-emulator"), ["token", "--sub", sub, "--now", String(now.prefix(19)) + "Z"])
        let token = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, !token.isEmpty else { throw StackError("token: \(result.standardError)") }
        state.withLock {
            $0.cached = token
            $0.minted += 1
        }
        return token
    }
}

struct StackError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
