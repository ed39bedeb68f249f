import EmulatorKit
import EmulatorServer
import Foundation
import InkraJSON
import InkraTestSupport
import SingleTable
import Testing

@Suite("serve: a real bootstrap on the Runtime API", .serialized)
struct RuntimeServeTests {
    /// Waits until the runtime polls the Runtime API.
    static func waitForRuntime(_ served: ServeFixture) async throws {
        for _ in 0..<400 {
            if await served.server.runtimeAPI.isAttached { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw FixtureError("the runtime did not poll the Runtime API within 10 s")
    }

    /// `serve --bootstrap` with the test run's `bootstrap`, without the DynamoDB port.
    static func withBootstrap() -> ServeConfiguration {
        var configuration = ServeFixture.settings()
        configuration.dynamoDBPort = nil
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
            #expect(await served.server.runtimeAPI.nextCalls >= 2)
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
            #expect(await served.server.runtimeAPI.nextCalls >= 16)
        }
    }
}
