import EmulatorKit
import EmulatorServer
import Foundation
import InkraHandlers
import InkraTestSupport
import NIOHTTP1
import Testing

/// The bill of a session recorded by `serve --record` on the REST API, with API Gateway's
/// authorizer cache: what production would have been charged for it.
@Suite("replay --report --cost over a serve --record session")
struct ServeRecordCostTests {
    @Test("Charged requests, authorizer runs and units of a recorded session, worked by hand")
    func recordedSession() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-cost-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var settings = ServeFixture.settings(payload: .v1)
        let recorder = try ServeRecorder(directory: folder)
        settings.gateway.observers.append { recorder.record($0) }
        var statuses: [Int] = []
        try await ServeFixture.run(settings) { served in
            let alice = try ServeFixture.token("cost-alice")
            for _ in 0..<3 { statuses.append(try await served.generate(token: alice).status) }
            let usage = try await served.send(
                .GET, served.endpoints.api, path: "/usage", headers: [("Authorization", "Bearer \(alice)")])
            statuses.append(usage.status)
            statuses.append(try await served.generate(token: nil).status)
            statuses.append(try await served.generate(token: "not.a.token").status)
            statuses.append(
                try await served.generate(token: try ServeFixture.token("cost-carol", tier: "premium")).status)
        }
        #expect(statuses == [200, 200, 429, 200, 401, 401, 200])

        var options = EmulatorOptions(clock: { Date() })
        options.developmentKey = ServeFixture.developmentKey
        var replayer = try CostReplayer(options: options, limitsFile: nil)
        replayer.replayer = replayer.replayer.cachingAuthorizer(for: 300)
        let usage = await replayer.meter([folder])
        #expect(usage.problems.isEmpty, "\(usage.problems)")
        #expect(usage.events == 7)
        // API Gateway charges what reached a function: alice's 3 calls and her usage, carol's call;
        // not the two requests refused 401 ("Requests are not charged for authorization and
        // authentication failures", https://aws.amazon.com/api-gateway/pricing/).
        #expect(usage.total.restRequests == 5)
        // The authorizer ran for alice's token once (the cache answered her next three
        // requests), for the malformed token and for carol's; never for the request without one.
        #expect(usage.total.invocations[.authorizer]?.count == 3)
        #expect(usage.cachedAuthorizerAnswers == 3)
        #expect(usage.total.invocations[.generateQuestions]?.count == 4)
        #expect(usage.total.invocations[.checkUsage]?.count == 1)
        // Admitted: 6 write units and 1 read each (3 calls); the hourly refusal's mark 1 + 1 for
        // its GSI1 entry; checkUsage's 3 consistent reads.
        #expect(usage.total.writeUnits == 6 + 6 + 2 + 6)
        #expect(usage.total.readHalfUnits == 2 * (1 + 1 + 3 + 1))
        #expect(usage.total.answeredCalls == 3)
        #expect(usage.users.isSuperset(of: ["cost-alice", "cost-carol"]))
        #expect(Set(usage.byTier.keys).isSuperset(of: ["free", "premium"]))
    }
}
