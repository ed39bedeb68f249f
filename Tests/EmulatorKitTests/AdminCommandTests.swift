import DynamoDBTable
import EmulatorKit
import Foundation
import HTTPText
import InkraTestSupport
import InkraTime
import InkraUsage
import SingleTable
import Testing

/// `inkra-emulator admin …` as support runs it, on a state file and on DynamoDB (moto): what it
/// prints, the items before and after, and a second run that changes nothing.
struct AdminTarget: Sendable {
    /// 2026-11-17T10:30:00Z.
    static let now = Timestamp(timeIntervalSince1970: 1_794_911_400)
    static let at = ["--at", "2026-11-17T10:30:00Z"]

    /// The flags that name the table, and how the first line of the output names it.
    let flags: [String]
    let described: String
    let read: @Sendable () async throws -> [Item]

    /// Every item of a user, by sort key.
    func items(of user: String) async throws -> [String: Item] {
        var found: [String: Item] = [:]
        for item in try await read() where item["PK"] == .s(userPartition(user)) {
            if let sort = item["SK"]?.stringValue { found[sort] = item }
        }
        return found
    }

    func run(_ arguments: [String]) async throws -> ProcessResult {
        try await runEmulator(["admin"] + arguments + flags)
    }

    /// ada: one unit yesterday, two this hour with idempotency keys, then refused by the hour (free);
    /// bob: one unit this hour.
    static func seed(_ store: TableUsageStore) async throws {
        let yesterday = now.addingTimeInterval(-86_400)
        let requests = [
            ConsumeRequest(userID: "ada", instant: yesterday, limits: .premium),
            ConsumeRequest(
                userID: "ada", instant: now.addingTimeInterval(-25 * 60), limits: .free, idempotencyKey: "k1",
                tier: "free"),
            ConsumeRequest(
                userID: "ada", instant: now.addingTimeInterval(-24 * 60), limits: .free, idempotencyKey: "k2",
                tier: "free"),
            ConsumeRequest(userID: "ada", instant: now.addingTimeInterval(-20 * 60), limits: .free, tier: "free"),
            ConsumeRequest(userID: "bob", instant: now.addingTimeInterval(-30 * 60), limits: .premium, tier: "premium"),
        ]
        for request in requests { _ = try await store.consume(request) }
    }

    /// A state file holding the seeded usage (written as `--state` writes it).
    static func stateFile() async throws -> AdminTarget {
        let folder = Repository.temporaryDirectory()
        let url = folder.appendingPathComponent("state.json")
        let table = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
        try await seed(TableUsageStore(table: table, tableName: "inkra-usage"))
        try StateFile(url: url, tableName: "inkra-usage").save(table.snapshot())
        return AdminTarget(
            flags: ["--state", url.path], described: "table inkra-usage in state file \(url.path)",
            read: { try StateFile(url: url, tableName: "inkra-usage").load() })
    }

    /// A fresh table on moto holding the seeded usage. The set-up waits as the suites wait on moto
    /// (`MotoEndpoint.patient`: a parallel run queues on it), so only the admin commands are
    /// judged (`create-table` runs in scripts/ci-replay.sh and the fault harness).
    static func moto() async throws -> AdminTarget {
        let endpoint = try await MotoEndpoint.url()
        let name = "inkra-admin-\(UUID().uuidString.prefix(8).lowercased())"
        let client = PatientDynamoDB.client(endpoint)
        try await client.createTable(.singleTable(named: name))
        let table: any Table = client
        try await seed(TableUsageStore(table: table, tableName: name))
        return AdminTarget(
            flags: ["--dynamodb-endpoint", endpoint.absoluteString, "--table", name, "--yes"],
            described: "table \(name) at \(endpoint.absoluteString)",
            read: {
                var items: [Item] = []
                var start: Item?
                repeat {
                    let page = try await table.scan(
                        ScanRequest(tableName: name, exclusiveStartKey: start, consistentRead: true))
                    items += page.items
                    start = page.lastEvaluatedKey
                } while start != nil
                return items
            })
    }
}

/// The tests, run on each target.
enum AdminScenarios {
    static func refund(_ target: AdminTarget) async throws {
        let bob = try await target.items(of: "bob")
        let first = try await target.run(["refund", "ada", "2"] + AdminTarget.at)
        #expect(first.status == 0, "\(first.standardError)")
        #expect(
            first.standardOutput == """
                admin refund: ada, 2 unit(s), reference 2026-11-17T10/2, \(target.described)
                  month 2026-11: 3 -> 1
                  day 2026-11-17: 2 -> 0
                  hour 2026-11-17T10: 2 -> 0

                """)
        let after = try await target.items(of: "ada")
        #expect(after["USAGE#2026-11"]?["interviewCount"] == .n(1))
        #expect(after["RATELIMIT#2026-11-17"]?["requestCount"] == .n(0))
        #expect(after["RATELIMIT#2026-11-17T10"]?["requestCount"] == .n(0))
        #expect(after["REFUND#2026-11-17T10/2"]?["units"] == .n(2))

        let second = try await target.run(["refund", "ada", "2"] + AdminTarget.at)
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput.contains("refund 2026-11-17T10/2 was given to ada before: nothing changed"))
        #expect(second.standardOutput.contains("month 2026-11: 1 (unchanged)"))
        #expect(try await target.items(of: "ada") == after)

        let more = try await target.run(["refund", "ada", "5", "--reference", "INC-7"] + AdminTarget.at)
        #expect(more.standardOutput.contains("month 2026-11: 1 -> 0"), "never below zero")
        #expect(more.standardOutput.contains("day 2026-11-17: 0 (unchanged)"))
        #expect(try await target.items(of: "bob") == bob)
    }

    static func reset(_ target: AdminTarget) async throws {
        let first = try await target.run(["reset", "ada", "--window", "month"] + AdminTarget.at)
        #expect(first.status == 0, "\(first.standardError)")
        #expect(
            first.standardOutput == """
                admin reset: ada, \(target.described)
                  month 2026-11: 3 -> 0

                """)
        let after = try await target.items(of: "ada")
        #expect(after["USAGE#2026-11"]?["interviewCount"] == .n(0))
        #expect(after["RATELIMIT#2026-11-17"]?["requestCount"] == .n(2), "the other windows are untouched")

        let second = try await target.run(["reset", "ada", "--window", "month"] + AdminTarget.at)
        #expect(
            second.standardOutput == """
                admin reset: ada, \(target.described)
                  the month window is at zero already: nothing changed
                  month 2026-11: 0 (unchanged)

                """)
        #expect(try await target.items(of: "ada") == after)
    }

    static func erase(_ target: AdminTarget) async throws {
        let bob = try await target.items(of: "bob")
        let seeded = try await target.items(of: "ada").keys.sorted()
        #expect(seeded.count == 8, "\(seeded)")
        #expect(
            seeded.filter { !$0.hasPrefix("IDEMPOTENCY#") } == [
                "RATELIMIT#2026-11-16", "RATELIMIT#2026-11-16T10", "RATELIMIT#2026-11-17", "RATELIMIT#2026-11-17T10",
                "REFUSED", "USAGE#2026-11",
            ])
        let first = try await target.run(["erase", "ada"])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(
            first.standardOutput == """
                admin erase: ada, \(target.described)
                  removed 8 item(s): month 1, day 2, hour 2, idempotency 2, refused 1
                  refusal marks removed from GSI1: 1

                """)
        #expect(try await target.items(of: "ada").isEmpty)
        #expect(try await target.items(of: "bob") == bob)

        let second = try await target.run(["erase", "ada"])
        #expect(second.status == 0)
        #expect(
            second.standardOutput == """
                admin erase: ada, \(target.described)
                  nothing under ada's partition: nothing removed

                """)
    }

    static func refused(_ target: AdminTarget) async throws {
        let listed = try await target.run(["refused", "2026-11-17"])
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(
            listed.standardOutput == """
                admin refused: 2026-11-17, \(target.described): 1 user(s)
                  \(userKey("ada"))  tier free  window hour  until 2026-11-17T11:00:00Z

                """)
        let none = try await target.run(["refused", "2026-11-16"])
        #expect(none.standardOutput.hasSuffix(": 0 user(s)\n"))
    }
}

@Suite("admin on a state file (spawned)")
struct AdminStateFileTests {
    @Test("refund N: back in the month, day and hour, never below zero; the same command again changes nothing")
    func refund() async throws { try await AdminScenarios.refund(AdminTarget.stateFile()) }

    @Test("reset --window: that window to zero, the others untouched; again, nothing changes")
    func reset() async throws { try await AdminScenarios.reset(AdminTarget.stateFile()) }

    @Test("erase: nothing left under the user, counted by kind; another user untouched; again, nothing removed")
    func erase() async throws { try await AdminScenarios.erase(AdminTarget.stateFile()) }

    @Test("refused DATE: each user with the tier and the window that refused them")
    func refused() async throws { try await AdminScenarios.refused(AdminTarget.stateFile()) }

    @Test("Usage errors: no table named, a bad window, N below 1, DynamoDB without --yes (nothing written)")
    func usageErrors() async throws {
        let target = try await AdminTarget.stateFile()
        let before = try await target.read()
        let noTable = try await runEmulator(["admin", "erase", "ada"])
        #expect(noTable.status == 2)
        #expect(noTable.standardError.contains("give either --state FILE or --dynamodb-endpoint URL"))
        let window = try await target.run(["reset", "ada", "--window", "week"])
        #expect(window.status == 2)
        #expect(
            window.standardError.contains(
                "The value 'week' is invalid for '--window <window>'. Please provide one of 'month', 'day' or 'hour'."),
            "\(window.standardError)")
        let zero = try await target.run(["refund", "ada", "0"])
        #expect(zero.status == 2)
        let unconfirmed = try await runEmulator([
            "admin", "erase", "ada", "--dynamodb-endpoint", "http://127.0.0.1:9", "--table", "t",
        ])
        #expect(unconfirmed.status == 2)
        #expect(
            unconfirmed.standardError.contains(
                "admin erase writes to the table t at http://127.0.0.1:9: add --yes to go ahead (nothing was changed)"))
        #expect(try await target.read() == before)
    }
}

@Suite(
    "admin on DynamoDB (moto, spawned)", .serialized,
    .enabled(if: MotoEndpoint.isAvailable, Comment(rawValue: MotoEndpoint.skipReason)))
struct AdminDynamoDBTests {
    @Test("refund N: back in the month, day and hour, never below zero; the same command again changes nothing")
    func refund() async throws { try await AdminScenarios.refund(AdminTarget.moto()) }

    @Test("reset --window: that window to zero, the others untouched; again, nothing changes")
    func reset() async throws { try await AdminScenarios.reset(AdminTarget.moto()) }

    @Test("erase: nothing left under the user, counted by kind; another user untouched; again, nothing removed")
    func erase() async throws { try await AdminScenarios.erase(AdminTarget.moto()) }

    @Test("refused DATE: each user with the tier and the window that refused them")
    func refused() async throws { try await AdminScenarios.refused(AdminTarget.moto()) }

    @Test("erase --user-pool-id: the usage, then the Cognito user (moto); again, neither is there; others stay")
    func eraseWithTheCognitoUser() async throws {
        let pool = try await MotoCognito.pool()
        let leaving = try await pool.createUser(email: "leaving@example.com")
        let staying = try await pool.createUser(email: "staying@example.com")
        let target = try await AdminTarget.moto()
        let table: any Table = PatientDynamoDB.client(try await MotoEndpoint.url())
        let name = try #require(target.flags.firstIndex(of: "--table").map { target.flags[$0 + 1] })
        _ = try await TableUsageStore(table: table, tableName: name).consume(
            ConsumeRequest(userID: leaving, instant: AdminTarget.now, limits: .free, tier: "free"))
        let cognito = ["--user-pool-id", pool.userPoolID, "--cognito-endpoint", pool.endpoint.absoluteString]

        let first = try await target.run(["erase", leaving] + cognito)
        #expect(first.status == 0, "\(first.standardError)")
        #expect(
            first.standardOutput == """
                admin erase: \(leaving), \(target.described)
                  removed 3 item(s): month 1, day 1, hour 1
                  refusal marks removed from GSI1: 0
                  Cognito user \(leaving) deleted from \(pool.userPoolID)

                """)
        #expect(try await target.items(of: leaving).isEmpty)
        #expect(try await pool.hasUser(leaving) == false)
        #expect(try await pool.hasUser(staying))

        let second = try await target.run(["erase", leaving] + cognito)
        #expect(second.status == 0, "\(second.standardError)")
        #expect(
            second.standardOutput.hasSuffix("  no Cognito user \(leaving) in \(pool.userPoolID): nothing to delete\n"))
        #expect(try await pool.hasUser(staying))
    }

    @Test("erase --user-pool-id without --yes changes nothing, even on a state file; a pool that is not there fails")
    func eraseWithTheCognitoUserRefused() async throws {
        let state = try await AdminTarget.stateFile()
        let before = try await state.read()
        let unconfirmed = try await state.run(["erase", "ada", "--user-pool-id", "us-east-1_Missing1"])
        #expect(unconfirmed.status == 2)
        #expect(
            unconfirmed.standardError.contains(
                "admin erase deletes the Cognito user ada from us-east-1_Missing1: add --yes to go ahead"))
        #expect(try await state.read() == before)

        let endpoint = try await MotoEndpoint.url().absoluteString
        let missing = try await state.run([
            "erase", "ada", "--user-pool-id", "us-east-1_Missing1", "--cognito-endpoint", endpoint, "--yes",
        ])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("the usage of ada is erased, but the Cognito user was not deleted"))
        #expect(missing.standardError.contains("ResourceNotFoundException"), "\(missing.standardError)")
    }
}
