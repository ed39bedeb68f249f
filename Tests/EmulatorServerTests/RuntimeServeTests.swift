import EmulatorKit
import EmulatorServer
import Foundation
import InkraJSON
import InkraTestSupport
import InkraTime
import NIOHTTP1
import SingleTable
import Testing

@Suite("serve: a real bootstrap on the Runtime API", .serialized)
struct RuntimeServeTests {
    /// Waits until the runtime polls the Runtime API.
    static func waitForRuntime(_ served: ServeFixture) async throws {
        guard try await eventually(within: 10, { await served.server.runtimeAPI.isAttached }) else {
            throw FixtureError("the runtime did not poll the Runtime API within 10 s")
        }
    }

    /// Whether `condition` holds within `seconds`, checked every 25 ms.
    static func eventually(within seconds: Int = 5, _ condition: () async -> Bool) async throws -> Bool {
        for _ in 0..<(seconds * 40) {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(25))
        }
        return await condition()
    }

    /// `serve --bootstrap` with the test run's `bootstrap`, without the DynamoDB port.
    static func withBootstrap() -> ServeConfiguration {
        var configuration = ServeFixture.settings()
        configuration.ports[.dynamoDB] = nil
        configuration.runtimeExecutable = ChildProcess.built("bootstrap")
        return configuration
    }

    @Test("--bootstrap: POST /questions is answered by the runtime, behind the emulator's authorizer")
    func runtimeAnswers() async throws {
        try await ServeFixture.run(Self.withBootstrap()) { served in
            try await Self.waitForRuntime(served)
            let answer = try await served.generate(token: try ServeFixture.token("runtime-user", tier: "premium"))
            #expect(answer.status == 200)
            #expect(try answer.json["usage"]?["used"] == 1)
            // The runtime keeps its own table here, so the emulator's stays empty: the answer came from it.
            #expect(served.stack.memoryTable?.snapshot().isEmpty == true)
            // The runtime asks for its next event after posting the answer, so the second call
            // may come just after the client has read it.
            #expect(try await Self.eventually { await served.server.runtimeAPI.queue.nextCalls >= 2 })
        }
    }

    @Test("--bootstrap with the console: a request's detail holds the runtime's segments and their timeline")
    func timeline() async throws {
        var configuration = Self.withBootstrap()
        configuration.ports[.console] = 0
        try await ServeFixture.run(configuration) { served in
            let answer = try await served.generate(token: try ServeFixture.token("traced-user", tier: "premium"))
            #expect(answer.status == 200)
            let console = try #require(served.endpoints.console)
            let detail = try await served.send(.GET, console, path: "api/requests/1").json
            let trace = try #require(detail["trace"]?.object, "no segments in \(detail)")
            #expect(trace["name"] == "## generateQuestions")
            #expect(trace["type"] == "subsegment")
            let rows = detail["timeline"]?.array ?? []
            #expect(rows.first?["name"] == "## generateQuestions" && rows.first?["depth"] == 0)
            #expect(rows.first?["status"] == 200)
            #expect(rows.contains { $0["name"] == "consume" && $0["depth"] == 1 }, "\(rows)")
            for row in rows {
                #expect((row["offset"]?.double ?? -1) >= 0 && (row["duration"]?.double ?? -1) >= 0, "\(row)")
            }
            // The request's topic and caller stay out of the segments.
            let text = JSONValue.object(trace).jsonString
            #expect(!text.contains("grandmother") && !text.contains("traced-user"))
        }
    }

    @Test("--bootstrap: concurrent requests all wait for the one runtime; none is answered in-process")
    func concurrentRequestsQueueForTheRuntime() async throws {
        try await ServeFixture.run(Self.withBootstrap()) { served in
            try await Self.waitForRuntime(served)
            let token = try ServeFixture.token("queued-user", tier: "premium")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<16 { group.addTask { try await served.generate(token: token).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 16))
            // Every answer came from the runtime's own table: the emulator's stays empty.
            #expect(served.stack.memoryTable?.snapshot().isEmpty == true)
            #expect(await served.server.runtimeAPI.queue.nextCalls >= 16)
        }
    }

    @Test("A runtime's development JWKS is its own file, removed once the runtime has stopped")
    func developmentJWKSRemoved() async throws {
        let server = try await RuntimeAPIServer(functionName: "checkUsage", clock: { Timestamp.now })
        var options = EmulatorOptions(clock: { Timestamp.now })
        options.developmentKey = ServeFixture.developmentKey
        let runtimes = try (0..<2).map { _ in
            try LocalRuntime(
                executable: ChildProcess.built("bootstrap"), function: .checkUsage, server: server,
                options: options, dynamoDBEndpoint: nil)
        }
        let files = runtimes.compactMap(\.developmentJWKS)
        #expect(files.count == 2 && files[0] != files[1])
        for file in files {
            let jwks = try JSONParser.parse(Array(try Data(contentsOf: file)))
            #expect(jwks["keys"]?.array?.isEmpty == false)
        }
        for runtime in runtimes { await runtime.stop() }
        for _ in 0..<200 where files.contains(where: { FileManager.default.fileExists(atPath: $0.path) }) {
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(files.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
        await server.shutdown()
    }
}
