import EmulatorKit
import Foundation
import InkraJSON
import InkraTime
import InkraUsage
import Testing

/// A recorded workload whose outcomes under other limits are known: events written as a recording
/// would be (one folder per function), their expectations recorded by replaying them under the
/// default limits, as they were answered in production.
private struct Workload {
    /// One metered call: who, which tier, when (minutes after 2026-11-17T10:00:00Z).
    struct Call {
        var user: String
        var tier: String
        var minute: Int
    }

    static let start = Timestamp(timeIntervalSince1970: 1_794_909_600)  // 2026-11-17T10:00:00Z
    static let topic = "the summer my grandfather taught me to sail, 1961"

    let folder: URL

    /// Writes the calls as token-carrying REST events, then records their expectations.
    static func recorded(_ calls: [Call]) async throws -> Workload {
        let folder = Repository.temporaryDirectory().appendingPathComponent("recorded")
        let functionFolder = folder.appendingPathComponent("generateQuestions")
        try FileManager.default.createDirectory(at: functionFolder, withIntermediateDirectories: true)
        for (index, call) in calls.enumerated() {
            let time = start.addingTimeInterval(TimeInterval(call.minute * 60))
            let token = try DevelopmentTokens.mint(
                with: Repository.developmentKey, claims: .init(sub: call.user, tier: call.tier), at: time)
            let event = SampleEvents.event(
                .restGenerate, token: token, body: #"{"topic":"\#(topic)"}"#, at: time,
                requestID: "req-\(index + 1)-\(call.user)")
            let name = String(format: "%03d-%@.json", index + 1, call.user)
            try Data(event.jsonString.utf8).write(to: functionFolder.appendingPathComponent(name))
        }
        try await record(folder)
        return Workload(folder: folder)
    }

    /// Records every event's expectation by replaying the folder under the default limits.
    static func record(_ folder: URL) async throws {
        let records = await Replayer(stack: try await EmulatorStack(options: Repository.options()), update: true)
            .replay([folder])
        #expect(records.allSatisfy { $0.updated && $0.ok })
    }

    func limitsFile(_ json: String) throws -> URL {
        let url = folder.deletingLastPathComponent().appendingPathComponent("limits-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: url)
        return url
    }

    /// The report of a replay under a limits file.
    func report(limits json: String) async throws -> WhatIfReport {
        var options = Repository.options()
        options.limitsFile = try limitsFile(json)
        return try await WhatIfReplayer(stack: try await EmulatorStack(options: options)).report([folder])
    }

    func remove() { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
}

/// Alice calls three times in one hour (the third refused by the hourly limit of 2), Bob twice,
/// and Carol, premium, twice.
private let hourlyWorkload: [Workload.Call] = [
    .init(user: "alice", tier: "free", minute: 0),
    .init(user: "bob", tier: "free", minute: 5),
    .init(user: "alice", tier: "free", minute: 10),
    .init(user: "carol", tier: "premium", minute: 12),
    .init(user: "bob", tier: "free", minute: 15),
    .init(user: "alice", tier: "free", minute: 20),
    .init(user: "carol", tier: "premium", minute: 25),
]

@Suite("What if: replay under other limits, reported against the recording")
struct WhatIfTests {
    @Test("Lowering the free hourly limit from 2 to 1 refuses exactly Alice's and Bob's second calls")
    func lowerHourly() async throws {
        let workload = try await Workload.recorded(hourlyWorkload)
        defer { workload.remove() }
        let report = try await workload.report(limits: #"{"free": {"hourly": 1}}"#)

        #expect(report.events == 7)
        #expect(report.compared == 7)
        #expect(report.changedCalls == 2)
        #expect(report.tiers.map(\.tier) == ["free", "premium"])
        let free = try #require(report.tiers.first)
        #expect(free.admittedToRefusedTotal.calls == 2)
        #expect(free.admittedToRefusedTotal.users == 2)
        #expect(free.admittedToRefused[.hour]?.calls == 2)
        #expect(free.admittedToRefused[.hour]?.users == 2)
        #expect(free.admittedToRefused[.day] == nil && free.admittedToRefused[.month] == nil)
        #expect(free.admittedToRefused[.hour]?.examples.map(\.reference) == ["req-3-alice", "req-5-bob"])
        #expect(free.admittedToRefused[.hour]?.examples.map(\.userID) == ["alice", "bob"])
        #expect(free.refusedToAdmitted.calls == 0)
        #expect(free.stillAdmitted == 2)
        #expect(free.stillRefused == 1)
        #expect(free.usersAffected == 2)
        let premium = try #require(report.tiers.last)
        #expect(!premium.changes)
        #expect(premium.stillAdmitted == 2)

        let lines = report.text.split(separator: "\n").map(String.init)
        #expect(lines.contains("free: 2 users affected (2 still admitted, 1 still refused)"))
        #expect(lines.contains("  admitted → refused: 2 calls, 2 users"))
        #expect(lines.contains("    by the hour: 2 calls, 2 users"))
        #expect(lines.contains("      req-3-alice  user alice  at 2026-11-17T10:10:00Z  admitted → refused (hour)"))
        #expect(lines.contains("premium: no change (2 still admitted, 0 still refused)"))
        #expect(lines.last == "2 calls would be admitted or refused differently.")

        let json = report.json
        #expect(json["changedCalls"] == 2)
        #expect(json["compared"] == 7)
        #expect(json["tiers"]?["free"]?["usersAffected"] == 2)
        #expect(json["tiers"]?["free"]?["admittedToRefused"]?["calls"] == 2)
        #expect(json["tiers"]?["free"]?["admittedToRefused"]?["byWindow"]?["hour"]?["users"] == 2)
        #expect(json["tiers"]?["free"]?["admittedToRefused"]?["byWindow"]?["day"]?["calls"] == 0)
        #expect(json["tiers"]?["free"]?["refusedToAdmitted"]?["calls"] == 0)
        #expect(json["tiers"]?["premium"]?["stillAdmitted"] == 2)
        #expect(json["limits"]?["free"]?["hourly"] == 1)
        #expect(
            json["tiers"]?["free"]?["admittedToRefused"]?["examples"]?.array?.first
                == [
                    "requestId": "req-3-alice", "userId": "alice", "recordedAt": "2026-11-17T10:10:00Z",
                    "file": .string(workload.folder.appendingPathComponent("generateQuestions/003-alice.json").path),
                    "recorded": "admitted", "replayed": "refused (hour)",
                ])
    }

    @Test("Raising the free hourly limit to 3 admits the one call the recording refused")
    func raiseHourly() async throws {
        let workload = try await Workload.recorded(hourlyWorkload)
        defer { workload.remove() }
        let report = try await workload.report(limits: #"{"free": {"hourly": 3}}"#)
        let free = try #require(report.tiers.first { $0.tier == "free" })
        #expect(free.refusedToAdmitted.calls == 1)
        #expect(free.refusedToAdmitted.users == 1)
        #expect(free.refusedToAdmitted.examples.map(\.reference) == ["req-6-alice"])
        #expect(free.admittedToRefusedTotal.calls == 0)
        #expect(free.stillAdmitted == 4 && free.stillRefused == 0)
        #expect(report.changedCalls == 1)
        #expect(report.text.contains("\n  refused → admitted: 1 call, 1 user\n"))
        #expect(report.json["tiers"]?["free"]?["refusedToAdmitted"]?["users"] == 1)
    }

    @Test("The same limits as the recording change nothing")
    func sameLimits() async throws {
        let workload = try await Workload.recorded(hourlyWorkload)
        defer { workload.remove() }
        let report = try await workload.report(limits: #"{"free": {"hourly": 2}}"#)
        #expect(report.changedCalls == 0)
        #expect(report.tiers.allSatisfy { !$0.changes })
        #expect(report.text.hasSuffix("No call would be admitted or refused differently."))
    }

    @Test("A report names requests and users, never a topic or a token")
    func noContent() async throws {
        let workload = try await Workload.recorded(hourlyWorkload)
        defer { workload.remove() }
        let report = try await workload.report(limits: #"{"free": {"hourly": 1}}"#)
        for text in [report.text, report.json.jsonString] {
            #expect(!text.contains("grandfather"))
            #expect(!text.contains("Bearer"))
            #expect(!text.contains("eyJ"))
        }
    }

    @Test("A recorded context's tier quota moves to the new monthly limit; a user's own quota stays")
    func recordedQuota() async throws {
        let folder = Repository.temporaryDirectory().appendingPathComponent("generateQuestions")
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Six calls on three days, two a day in different hours: the sixth meets the monthly 5.
        // Dana's recorded context carries her tier's quota (5); Erin's carries her own (6).
        for (user, quota) in [("dana", "5"), ("erin", "6")] {
            for call in 0..<7 {
                let time = Workload.start.addingTimeInterval(TimeInterval((call / 2) * 86_400 + (call % 2) * 3_600))
                let event = SampleEvents.event(.restGenerate, token: nil, at: time, requestID: "\(user)-\(call + 1)")
                    .setting(
                        [
                            "principalId": .string(user), "userId": .string(user), "tier": "free",
                            "quota": .string(quota),
                        ],
                        at: ["requestContext", "authorizer"])
                try Data(event.jsonString.utf8).write(to: folder.appendingPathComponent("\(user)-\(call + 1).json"))
            }
        }
        try await Workload.record(folder.deletingLastPathComponent())

        var options = Repository.options()
        let limits = folder.deletingLastPathComponent().appendingPathComponent("monthly-10.json")
        try Data(#"{"free": {"monthly": 10}}"#.utf8).write(to: limits)
        options.limitsFile = limits
        let report = try await WhatIfReplayer(stack: try await EmulatorStack(options: options)).report([folder])
        let free = try #require(report.tiers.first)
        // Dana's sixth and seventh calls are admitted now; Erin keeps her own quota of 6.
        #expect(free.refusedToAdmitted.examples.map(\.reference) == ["dana-6", "dana-7"])
        #expect(free.refusedToAdmitted.users == 1)
        #expect(free.stillRefused == 1)
        #expect(free.stillAdmitted == 11)
    }

    @Test("The report builder counts calls, distinct users and windows from replay results")
    func builder() {
        func call(_ user: String?, _ tier: String, _ recorded: Admission, _ replayed: Admission, _ id: Int)
            -> MeteredCall
        {
            MeteredCall(
                file: "f\(id).json", requestID: "r\(id)", userID: user, tier: tier, recorded: recorded,
                replayed: replayed)
        }
        let calls = [
            call("u1", "free", .admitted, .refused(.day), 1),
            call("u1", "free", .admitted, .refused(.day), 2),
            call("u2", "free", .admitted, .refused(.day), 3),
            call("u3", "free", .admitted, .refused(.day), 4),
            call("u4", "free", .admitted, .refused(.month), 5),
            call("u1", "free", .refused(.hour), .refused(.day), 6),
            call("u5", "free", .refused(.hour), .admitted, 7),
            call("u6", "free", .admitted, .other(400), 8),
            call("u7", "free", .other(401), .other(401), 9),
            call("p1", "premium", .refused(.day), .refused(.day), 10),
        ]
        let report = WhatIfReport(calls: calls, limits: TierLimits(), exampleLimit: 3)
        #expect(report.compared == 9)
        #expect(report.answeredOtherwise == 1)
        let free = report.tiers[0]
        #expect(free.admittedToRefusedTotal.calls == 5)
        #expect(free.admittedToRefusedTotal.users == 4)
        #expect(free.admittedToRefused[.day]?.calls == 4)
        #expect(free.admittedToRefused[.day]?.users == 3)
        #expect(free.admittedToRefused[.day]?.examples.map(\.reference) == ["r1", "r2", "r3"])
        #expect(free.admittedToRefused[.month]?.users == 1)
        #expect(free.refusedByAnotherWindow.calls == 1)
        #expect(free.refusedToAdmitted.users == 1)
        #expect(free.otherChanges.calls == 1)
        #expect(free.usersAffected == 5)
        #expect(report.changedCalls == 7)
        #expect(report.tiers[1].tier == "premium" && report.tiers[1].stillRefused == 1)
    }

    @Test(
        "Outcomes are read as docs/errors.md writes them",
        arguments: [
            (429, #"{"code":"rate_limited","window":"day"}"#, Admission.refused(.day)),
            (429, #"{"error":"Hourly limit exceeded","limit":2}"#, .refused(.hour)),
            (429, #"{"code":"quota_exceeded"}"#, .refused(.month)),
            (429, #"{"error":"Too Many Requests","code":"throttled"}"#, .other(429)),
            (200, #"{"questions":[]}"#, .admitted),
            (400, #"{"code":"invalid_request"}"#, .other(400)),
        ])
    func admissions(status: Int, body: String, expected: Admission) throws {
        #expect(Admission(status: status, body: try JSONParser.parse(body)) == expected)
        #expect(
            Admission(expectation: ["statusCode": .number(status), "body": try JSONParser.parse(body)]) == expected)
    }
}

@Suite("What if: calls changed for other reasons than the limits come first")
struct WhatIfOtherChangesTests {
    @Test("A refused token or another error is named on the report's second line and in its last, by change")
    func otherReasonsFirst() {
        let calls = [
            MeteredCall(file: "1", tier: "free", recorded: .admitted, replayed: .admitted),
            MeteredCall(file: "2", tier: "free", recorded: .admitted, replayed: .refused(.hour)),
            MeteredCall(file: "3", userID: "alice", tier: "free", recorded: .admitted, replayed: .other(401)),
            MeteredCall(file: "4", tier: "free", recorded: .other(400), replayed: .other(401)),
            MeteredCall(file: "5", tier: "free", recorded: .other(401), replayed: .other(401)),
        ]
        let report = WhatIfReport(calls: calls, limits: TierLimits())
        #expect(report.changedOtherwise == ["admitted → 401": 1, "400 → 401": 1])
        let lines = report.text.split(separator: "\n").map(String.init)
        #expect(
            lines[1]
                == "  First: 2 calls answered otherwise than recorded, not by the limits (400 → 401: 1, admitted → 401: 1): "
                + "a token refused, a failure or another starting table; the limits' figures below do not explain them."
        )
        #expect(
            lines.last
                == "1 call would be admitted or refused differently; 2 calls changed for other reasons than the limits."
        )
        #expect(report.json["changedOtherwise"]?["calls"] == 2)
        #expect(report.json["changedOtherwise"]?["byTransition"]?["admitted → 401"] == 1)
        // Without such changes the report reads as before.
        let clean = WhatIfReport(calls: Array(calls.prefix(2)), limits: TierLimits())
        #expect(!clean.text.contains("First:"))
        #expect(clean.json["changedOtherwise"]?["calls"] == 0)
    }
}
