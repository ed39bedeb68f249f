import EmulatorKit
import EmulatorServer
import Foundation
import InkraHandlers
import InkraTestSupport
import InkraTime
import Testing

/// The bill of a session recorded by `serve --record` on the REST API, with API Gateway's
/// authorizer cache: what production would have been charged for it.
@Suite("replay report and bill over a serve --record session: the bill, and other algorithms")
struct ServeRecordCostTests {
    /// The session's answers (``ServeRecordTests/recordSession(payload:into:)`` on the REST API):
    /// alice's three calls (the third over the free hourly limit) and her usage, a call without a
    /// token, one with a malformed token, a blocked user's, carol's (premium), and a path API
    /// Gateway refuses itself (not recorded).
    static let statuses = [200, 200, 429, 200, 401, 401, 403, 200, 403]

    @Test("Charged requests, authorizer runs and units of a recorded session, worked by hand")
    func recordedSession() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-cost-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await ServeRecordTests.recordSession(payload: "v1", into: folder) == Self.statuses)

        var options = EmulatorOptions(clock: { Timestamp.now })
        options.developmentKey = ServeFixture.developmentKey
        var replayer = try await CostReplayer(options: options, limitsFile: nil)
        replayer.replayer = replayer.replayer.cachingAuthorizer(for: 300)
        let usage = await replayer.meter([folder])
        #expect(usage.problems.isEmpty, "\(usage.problems)")
        #expect(usage.events == 8)
        // API Gateway charges what reached a function: alice's 3 calls and her usage, carol's call;
        // not the two requests refused 401 nor the blocked user's denied 403 ("Requests are not
        // charged for authorization and authentication failures",
        // https://aws.amazon.com/api-gateway/pricing/).
        #expect(usage.total.restRequests == 5)
        // The authorizer ran for alice's token once (the cache answered her next three
        // requests), for the malformed token, the blocked user's and carol's; never for the
        // request without one.
        #expect(usage.total.invocations[.authorizer]?.count == 4)
        #expect(usage.cachedAuthorizerAnswers == 3)
        #expect(usage.total.invocations[.generateQuestions]?.count == 4)
        #expect(usage.total.invocations[.checkUsage]?.count == 1)
        // Admitted: 6 write units and 1 read each (3 calls); the hourly refusal's mark 1 + 1 for
        // its GSI1 entry and the standing refusal 1; checkUsage's 3 consistent reads; half a unit
        // for each of the four consumes' standing-refusal read and for alice's and carol's first
        // call's carried-usage query (their tokens carry an email).
        #expect(usage.total.writeUnits == 6 + 6 + (2 + 1) + 6)
        #expect(usage.total.readHalfUnits == 2 * (1 + 1 + 3 + 1) + 4 + 2)
        #expect(usage.total.answeredCalls == 3)
        #expect(usage.users.isSuperset(of: ["rec-alice", "rec-carol"]))
        #expect(Set(usage.byTier.keys).isSuperset(of: ["free", "premium"]))
    }

    @Test(
        "The same session decided again by another algorithm: the same limits change nothing, a wider hour admits the refusal",
        arguments: [WindowAlgorithm.slidingWindow, .tokenBucket])
    func algorithms(algorithm: WindowAlgorithm) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-algo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await ServeRecordTests.recordSession(payload: "v1", into: folder) == Self.statuses)
        func report(limits: String?) async throws -> WhatIfReport {
            var options = EmulatorOptions(clock: { Timestamp.now })
            options.developmentKey = ServeFixture.developmentKey
            if let limits {
                let file = folder.deletingLastPathComponent().appendingPathComponent("limits-\(UUID().uuidString).json")
                try Data(limits.utf8).write(to: file)
                options.limitsFile = file
            }
            var whatIf = try WhatIfReplayer(stack: try await EmulatorStack(options: options))
            whatIf.algorithm = algorithm
            return await whatIf.report([folder])
        }
        // Alice's three calls came at one instant: 2 admitted, the third refused by the free
        // hourly limit of 2. Counted over a rolling hour, or by a bucket of 2 tokens, the same.
        let same = try await report(limits: nil)
        #expect(same.problems.isEmpty, "\(same.problems)")
        #expect(same.compared == 4)
        #expect(same.changedCalls == 0)
        // Three an hour: the refused call would have been admitted, whatever the count.
        let wider = try await report(limits: #"{"free": {"hourly": 3}}"#)
        let free = try #require(wider.tiers.first { $0.tier == "free" })
        #expect(free.refusedToAdmitted.calls == 1)
        #expect(wider.changedCalls == 1)
    }
}
