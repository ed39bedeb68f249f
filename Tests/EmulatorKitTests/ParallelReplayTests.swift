import EmulatorKit
import Foundation
import InkraJSON
import InkraTestSupport
import Testing

@testable import InkraUsage

/// `replay --jobs N` must give exactly what `--jobs 1` gives, on a workload whose outcome depends
/// on order (``InterleavedWorkload``): users interleaved, idempotency keys shared across users,
/// accounts deleted in the middle.
@Suite("replay --jobs (spawned)")
struct ParallelReplayTests {
    /// One run of the emulator, with the state file it left.
    struct Run: Equatable {
        var status: Int32
        var output: String
        var state: Data?
    }

    func replay(_ arguments: [String], jobs: Int, in scratch: URL) async throws -> Run {
        let state = scratch.appendingPathComponent("state-\(UUID().uuidString).json")
        let result = try await runEmulator(["replay"] + arguments + ["--jobs", String(jobs), "--state", state.path])
        return Run(status: result.status, output: result.standardOutput, state: try? Data(contentsOf: state))
    }

    /// A state file's items, each idempotency record's sealed response opened. AES-GCM seals with
    /// a fresh nonce each time, so two sequential replays already differ in those bytes: what must
    /// be equal is what they seal.
    static func comparable(_ state: Data?) throws -> [JSONValue] {
        let items = try JSONParser.parse(Array(state ?? Data()))["items"]?.array ?? []
        return items.map { item in
            // The attempt that held an idempotency record is a random token, new in every run.
            var item = item
            if item["attempt"] != nil { item.set(.string("<attempt>"), at: ["attempt", "S"]) }
            // The partition names the user by a pseudonym: the user is the workload's whose it is.
            guard let sealed = item["sealedResponse"]?["S"]?.string,
                let user = (0..<12).map({ "user-\($0)" }).first(where: { userPartition($0) == item["PK"]?["S"]?.string }
                )
            else { return item }
            for key in InterleavedWorkload.idempotencyKeys {
                if let opened = IdempotencySeal(key: key, userID: String(user), secret: .development).open(sealed) {
                    return item.setting(.string("\(opened.statusCode) \(opened.body)"), at: ["sealedResponse", "S"])
                }
            }
            return item
        }
    }

    /// Text lines without the time each event took and the replay took, which differ from run to run.
    static func withoutTimes(_ output: String) -> [String] {
        output.split(separator: "\n").map { line in
            String(line.replacing(#/ +(in )?[0-9.]+ m?s(?=  \(|$)/#, with: ""))
        }
    }

    @Test("--jobs 2 prints the same lines in the same order, leaves the same state file and exits alike")
    func sameAsSequential() async throws {
        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let folder = scratch.appendingPathComponent("workload")
        try InterleavedWorkload().writeFolder(folder)

        let one = try await replay([folder.path, "--json"], jobs: 1, in: scratch)
        let two = try await replay([folder.path, "--json"], jobs: 2, in: scratch)
        #expect(one.status == 1, "refused calls mismatch their expected 200")
        #expect(two.status == one.status)
        #expect(two.output == one.output)
        #expect(one.state != nil)
        #expect(try Self.comparable(two.state) == Self.comparable(one.state))
        #expect(
            try Self.comparable(one.state).contains { $0["sealedResponse"]?["S"]?.string?.hasPrefix("200 ") == true })
        let lines = one.output.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
        #expect(lines.count == 402)
        #expect(lines.contains { $0["statusCode"] == 429 }, "the workload reaches the limits")
        #expect(lines.contains { $0["response"]?["headers"]?["Idempotent-Replayed"] == "true" })

        let textOne = try await replay([folder.path], jobs: 1, in: scratch)
        let textTwo = try await replay([folder.path], jobs: 2, in: scratch)
        #expect(textTwo.status == textOne.status)
        #expect(Self.withoutTimes(textTwo.output) == Self.withoutTimes(textOne.output))
        #expect(try Self.comparable(textTwo.state) == Self.comparable(textOne.state))
        #expect(textOne.output.contains("000100-broken.json  -  -"))
    }

    @Test("replay report under --jobs 2 is the report of --jobs 1, in text and JSON")
    func sameReport() async throws {
        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let folder = scratch.appendingPathComponent("workload")
        try InterleavedWorkload().writeFolder(folder)
        let limits = scratch.appendingPathComponent("limits.json")
        try Data(#"{"free": {"hourly": 2, "daily": 4}, "premium": {"hourly": 3}}"#.utf8).write(to: limits)
        for format in [[], ["--json"]] {
            let arguments = ["report", folder.path, "--limits", limits.path] + format
            let one = try await replay(arguments, jobs: 1, in: scratch)
            let two = try await replay(arguments, jobs: 2, in: scratch)
            #expect(one.status == 0)
            #expect(two.status == one.status)
            #expect(two.output == one.output)
            #expect(try Self.comparable(two.state) == Self.comparable(one.state))
            #expect(one.output.contains("metered calls compared") || one.output.contains("\"compared\""))
        }
    }

    @Test("The JSON-lines form of the workload replays alike under --jobs 1 and 2")
    func sameFromLines() async throws {
        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("workload.jsonl")
        try InterleavedWorkload().writeLines(file)
        let one = try await replay([file.path, "--json"], jobs: 1, in: scratch)
        let two = try await replay([file.path, "--json"], jobs: 2, in: scratch)
        #expect(one.status == 1)
        #expect(two.status == one.status)
        #expect(two.output == one.output)
        #expect(try Self.comparable(two.state) == Self.comparable(one.state))
    }

    @Test("--jobs 0 is refused with a message that names the flag")
    func zeroJobs() async throws {
        let result = try await runEmulator(["replay", "events", "--jobs", "0"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("--jobs must be at least 1, not 0"))
    }
}
