import EmulatorKit
import Foundation
import HTTPText
import InkraJSON
import InkraTestSupport
import InkraTime
import InkraUsage
import SingleTable
import Testing

/// One writer per state file: a second process is refused, naming the holder; a holder killed
/// with `kill -9` leaves nothing that blocks.
@Suite("--state: one process at a time")
struct StateFileLockTests {
    /// 2027-01-15T08:00:00Z.
    static let when = Timestamp(timeIntervalSince1970: 1_800_000_000)

    /// `serve --state` on free ports, and its DynamoDB endpoint once its banner is out.
    static func serve(_ state: URL) async throws -> (RunningChild, HTTPURL) {
        let server = try RunningChild(
            Repository.emulatorBinary,
            [
                "serve", "--port", "0", "--lambda-port", "0", "--runtime-api-port", "0", "--dynamodb-port", "0",
                "--no-access-log", "--no-console", "--state", state.path,
            ], includingStandardError: true)
        guard let line = await server.line(containing: "  DynamoDB "),
            let address = line.split(separator: " ").first(where: { $0.hasPrefix("http://") }),
            let endpoint = HTTPURL(string: String(address)),
            await server.line(containing: "Press Ctrl-C") != nil
        else {
            _ = await server.stop(with: SIGKILL)
            throw StateLockTestError("serve did not start: \(server.lines)")
        }
        return (server, endpoint)
    }

    /// One unit for each user, through a DynamoDB endpoint.
    static func consume(_ users: [String], through endpoint: HTTPURL) async throws {
        let store = TableUsageStore(table: PatientDynamoDB.client(endpoint), tableName: "inkra-usage")
        for user in users {
            let outcome = try await store.consume(ConsumeRequest(userID: user, instant: when, limits: .free))
            guard case .consumed = outcome else { throw StateLockTestError("\(user): \(outcome)") }
        }
    }

    @Test("A second process on a state file in use is refused, naming the holder; the first's writes are all there")
    func secondProcessRefused() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = folder.appendingPathComponent("state.json")
        let (server, endpoint) = try await Self.serve(state)
        let users = (0..<30).map { "held-\($0)" }
        do {
            try await Self.consume(Array(users.prefix(15)), through: endpoint)

            let replay = try await runEmulator(["replay", Repository.events.path, "--state", state.path])
            #expect(replay.status == 2)
            let holder =
                "state file \(state.path) is in use by process \(server.processIdentifier) (inkra-emulator serve "
            #expect(replay.standardError.contains(holder), "\(replay.standardError)")
            #expect(replay.standardError.contains("go through its DynamoDB endpoint (--dynamodb-endpoint URL"))
            #expect(replay.standardOutput.isEmpty, "nothing was replayed")

            let admin = try await runEmulator(["admin", "erase", "held-0", "--state", state.path])
            #expect(admin.status == 2)
            #expect(admin.standardError.contains(holder))

            await #expect {
                _ = try await EmulatorStack(options: Repository.options(state: state))
            } throws: { error in
                (error as? EmulatorError)?.message.contains(holder) == true
            }

            // Support reaches the running serve through its DynamoDB endpoint instead.
            let unconfirmed = try await runEmulator([
                "admin", "erase", "held-0", "--dynamodb-endpoint", endpoint.absoluteString,
            ])
            #expect(unconfirmed.status == 2)
            let erased = try await runEmulator([
                "admin", "erase", "held-0", "--dynamodb-endpoint", endpoint.absoluteString, "--yes",
            ])
            #expect(erased.status == 0, "\(erased.standardError)")
            #expect(
                erased.standardOutput == """
                    admin erase: held-0, table inkra-usage at \(endpoint.absoluteString)
                      removed 3 item(s): month 1, day 1, hour 1
                      refusal marks removed from GSI1: 0

                    """)

            try await Self.consume(Array(users.suffix(15)), through: endpoint)
        } catch {
            _ = await server.stop(with: SIGKILL)
            throw error
        }
        #expect(await server.stop() == 0)

        let items = try StateFile(url: state, tableName: "inkra-usage").load()
        for user in users.dropFirst() {
            let month = items.first { $0["PK"] == .s(userPartition(user)) && $0["SK"] == .s("USAGE#2027-01") }
            #expect(month?["interviewCount"] == .n(1), "\(user)'s unit, written through serve, is in the state file")
        }
        #expect(!items.contains { $0["PK"] == .s(userPartition("held-0")) }, "erased through serve's DynamoDB endpoint")
        #expect(
            !items.contains { $0["PK"] == .s(userPartition("scenario-free-user")) }, "the refused replay wrote nothing")
    }

    @Test("After kill -9 of the holder, a new process takes the state file, with every acknowledged write")
    func killedHolderReleases() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = folder.appendingPathComponent("state.json")
        let (server, endpoint) = try await Self.serve(state)
        do {
            try await Self.consume(["killed-0", "killed-1"], through: endpoint)
        } catch {
            _ = await server.stop(with: SIGKILL)
            throw error
        }
        #expect(await server.stop(with: SIGKILL) == -SIGKILL)
        #expect(FileManager.default.fileExists(atPath: state.path + ".lock"), "the lock file stays; its lock does not")

        let usage = try await runEmulator([
            "usage", "--sub", "killed-1", "--state", state.path, "--now", "2027-01-15T08:00:00Z",
        ])
        #expect(usage.status == 0, "\(usage.standardError)")
        #expect(try JSONParser.parse(usage.standardOutput)["month"]?["used"] == 1)

        let (again, _) = try await Self.serve(state)
        #expect(await again.stop() == 0)
    }

    @Test("Stacks in one process share the lock; a lock file left by a process that is gone blocks nothing")
    func sameProcessAndStaleFile() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = folder.appendingPathComponent("state.json")
        try Data("999999 inkra-emulator serve --state \(state.path)\n".utf8)
            .write(to: state.appendingPathExtension("lock"))
        do {
            let first = try await EmulatorStack(options: Repository.options(state: state))
            let second = try await EmulatorStack(options: Repository.options(state: state))
            #expect(first.stateLock != nil && second.stateLock != nil)
            _ = try await first.store.consume(ConsumeRequest(userID: "shared", instant: Self.when, limits: .free))
            try first.saveState()
            let lock = try String(contentsOf: state.appendingPathExtension("lock"), encoding: .utf8)
            #expect(lock.hasPrefix("\(getpid()) "), "the lock file names this process now: \(lock)")
        }
        // Released with the last stack: another process takes the file.
        let usage = try await runEmulator([
            "usage", "--sub", "shared", "--state", state.path, "--now", "2027-01-15T08:00:00Z",
        ])
        #expect(usage.status == 0, "\(usage.standardError)")
        #expect(try JSONParser.parse(usage.standardOutput)["month"]?["used"] == 1)
    }
}

struct StateLockTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
