import EmulatorKit
import Foundation
import HTTPText
import InkraJSON
import InkraTestSupport
import InkraTime
import NIOCore
import NIOHTTP1
import OutboundHTTP
import Testing

/// The `inkra-emulator serve` binary, which (unlike the in-process fixture) runs its Swift tasks
/// on its event loops, each request's work on its loop's actor: the limits, the answers and the
/// shutdown must hold there too.
@Suite("serve: the inkra-emulator binary")
struct ServeBinaryTests {
    @Test(
        "500 concurrent POST /questions for one free user: 2 answered 200, the rest 429; SIGTERM writes the state",
        .timeLimit(.minutes(10)))
    func concurrentFreeUser() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "inkra-serve-binary-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let state = directory.appendingPathComponent("state.json")
        let server = try RunningChild(
            ChildProcess.built("inkra-emulator"),
            [
                "serve", "--port", "0", "--lambda-port", "0", "--runtime-api-port", "0", "--dynamodb-port", "0",
                "--no-access-log", "--no-console", "--no-throttle", "--state", state.path,
            ], includingStandardError: true)
        guard let banner = await server.line(containing: "API Gateway"),
            let api = banner.split(separator: " ").first(where: { $0.hasPrefix("http://") }),
            await server.line(containing: "Press Ctrl-C") != nil
        else {
            _ = await server.stop(with: SIGKILL)
            Issue.record("serve did not start: \(server.lines)")
            return
        }
        // The binary's tasks run on its event loops: no warning that they could not.
        #expect(!server.lines.contains { $0.contains("Swift tasks run on") }, "\(server.lines)")
        let client = OutboundHTTPClient(maximumConnectionsPerEndpoint: 64, maximumIdleConnectionsPerEndpoint: 64)
        let token = try DevelopmentTokens.mint(
            with: ServeFixture.developmentKey, claims: .init(sub: "binary-burst"), at: Timestamp.now)
        func send(_ method: HTTPMethod, _ path: String, body: String? = nil) async throws -> (Int, [UInt8]) {
            guard let url = HTTPURL(string: "\(api)\(path)") else { throw FixtureError("not a URL: \(api)\(path)") }
            var request = OutboundRequest(method: method, url: url, headers: [("Authorization", "Bearer \(token)")])
            if let body {
                request.headers.append(("Content-Type", "application/json"))
                request.body = Array(body.utf8)
            }
            let response = try await client.execute(request, timeout: Patience.hang, maximumResponseBytes: 1 << 20)
            return (response.status, response.body)
        }
        do {
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<500 {
                    group.addTask { try await send(.POST, "/questions", body: #"{"topic":"the harbour"}"#).0 }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses.count(where: { $0 == 200 }) == 2)
            #expect(statuses.count(where: { $0 == 429 }) == 498)
            let (status, body) = try await send(.GET, "/usage")
            #expect(status == 200)
            #expect(try JSONParser.parse(body)["hourly"]?["used"] == 2)
        } catch {
            await client.shutdown()
            _ = await server.stop(with: SIGKILL)
            throw error
        }
        await client.shutdown()
        #expect(await server.stop() == 0)
        let saved = try JSONParser.parse(Array(try Data(contentsOf: state)))
        let keys = saved["items"]?.array?.compactMap { $0["PK"]?["S"]?.string } ?? []
        #expect(keys.contains(userPartition("binary-burst")), "state items: \(keys)")
    }
}
