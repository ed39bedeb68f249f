import EmulatorKit
import Foundation
import InkraJSON
import InkraTestSupport
import Testing

@Suite("replay report (spawned)")
struct WhatIfCommandTests {
    /// events/free-user-limits replayed under a free hourly limit of 1: the second call of hour 10
    /// is refused by the hour, and the daily refusal at 12:00 admitted (one unit fewer was used).
    @Test("replay report --limits exits 0 and prints the changes, in text and as one JSON object")
    func report() async throws {
        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let limits = scratch.appendingPathComponent("hourly-1.json")
        try Data(#"{"free": {"hourly": 1}}"#.utf8).write(to: limits)
        let folder = "events/free-user-limits"

        let text = try await runEmulator(["replay", "report", folder, "--limits", limits.path])
        #expect(text.status == 0, "\(text.standardError)")
        let lines = text.standardOutput.split(separator: "\n").map(String.init)
        #expect(
            lines.first
                == "What if: 10 events replayed under \(limits.path); 8 metered calls compared with their recording.")
        #expect(lines.contains("  limits: free 5/month, 3/day, 1/hour; premium 999999/month, 100/day, 20/hour"))
        #expect(lines.contains("    by the hour: 1 call, 1 user"))
        #expect(
            lines.contains(
                "      Bq3Xr9f6c3135-f  user scenario-free-user  at 2026-11-17T10:10:00Z  admitted → refused (hour)"))
        #expect(lines.contains("  refused → admitted: 1 call, 1 user"))
        #expect(lines.last == "2 calls would be admitted or refused differently.")
        #expect(!text.standardOutput.contains("my first job"))

        let json = try await runEmulator(["replay", "report", folder, "--limits", limits.path, "--json"])
        #expect(json.status == 0, "\(json.standardError)")
        let object = try JSONParser.parse(json.standardOutput)
        #expect(object["events"] == 10)
        #expect(object["compared"] == 8)
        #expect(object["notMetered"] == 2)
        #expect(object["changedCalls"] == 2)
        #expect(object["tiers"]?["free"]?["admittedToRefused"]?["byWindow"]?["hour"]?["calls"] == 1)
        #expect(object["tiers"]?["free"]?["refusedToAdmitted"]?["calls"] == 1)
        #expect(object["tiers"]?["free"]?["usersAffected"] == 1)
    }

    /// events/free-user-limits under the default limits, counted otherwise (worked by hand in
    /// docs/emulator.md's what-if by algorithm): in a rolling 24 hours, day 2's 09:00 call follows
    /// three admitted calls of day 1 from 10:00 (refused by the day), and day 2's 11:00 call has
    /// only four admitted calls in 30 days (admitted; the calendar month had five). The token
    /// bucket answers every call as the calendar did.
    @Test("replay report --algorithm sliding-window and token-bucket decide the recorded calls again")
    func algorithms() async throws {
        let folder = "events/free-user-limits"
        let sliding = try await runEmulator(["replay", "report", folder, "--algorithm", "sliding-window"])
        #expect(sliding.status == 0, "\(sliding.standardError)")
        let lines = sliding.standardOutput.split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "  algorithm: sliding window (the same limits over the rolling hour, 24 hours and 30 days "
                    + "before each call), decided over the recorded instants"))
        #expect(lines.contains("    by the day: 1 call, 1 user"))
        #expect(lines.contains("  refused → admitted: 1 call, 1 user"))
        #expect(lines.last == "2 calls would be admitted or refused differently.")

        let json = try await runEmulator([
            "replay", "report", folder, "--algorithm", "sliding-window", "--json",
        ])
        #expect(json.status == 0, "\(json.standardError)")
        let object = try JSONParser.parse(json.standardOutput)
        #expect(object["algorithm"] == "sliding-window")
        let free = object["tiers"]?["free"]
        #expect(free?["admittedToRefused"]?["byWindow"]?["day"]?["calls"] == 1)
        #expect(
            free?["admittedToRefused"]?["examples"]?.array?.first?["recordedAt"] == "2026-11-18T09:00:00Z")
        #expect(free?["refusedToAdmitted"]?["examples"]?.array?.first?["recordedAt"] == "2026-11-18T11:00:00Z")
        #expect(free?["refusedToAdmitted"]?["examples"]?.array?.first?["recorded"] == "refused (month)")
        #expect(free?["stillAdmitted"] == 4)
        #expect(free?["stillRefused"] == 2)

        let bucket = try await runEmulator(["replay", "report", folder, "--algorithm", "token-bucket", "--json"])
        #expect(bucket.status == 0, "\(bucket.standardError)")
        let bucketObject = try JSONParser.parse(bucket.standardOutput)
        #expect(bucketObject["algorithm"] == "token-bucket")
        #expect(bucketObject["changedCalls"] == 0)
        #expect(bucketObject["tiers"]?["free"]?["stillAdmitted"] == 5)
        #expect(bucketObject["tiers"]?["free"]?["stillRefused"] == 3)

        let alone = try await runEmulator(["replay", folder, "--algorithm", "token-bucket"])
        #expect(alone.status == 2)
        #expect(alone.standardError.contains("Unknown option '--algorithm'"), "\(alone.standardError)")
        let unknown = try await runEmulator(["replay", "report", folder, "--algorithm", "leaky"])
        #expect(unknown.status == 2)
        #expect(unknown.standardError.contains("leaky"), "\(unknown.standardError)")
    }

    @Test(
        "A malformed limits file is refused with exit 2, naming the file and the fault",
        arguments: [
            (#"{"free": {"hourly": 0}}"#, "free.hourly must be a positive integer"),
            (#"{"free": {"weekly": 3}}"#, "free.weekly is not a limit (expected monthly, daily or hourly)"),
            (#"{"free": 3}"#, "free must be an object with monthly, daily, hourly"),
            ("{ not json", "must be a JSON object of tier names to limits"),
        ])
    func malformedLimits(contents: String, fault: String) async throws {
        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let limits = scratch.appendingPathComponent("bad-limits.json")
        try Data(contents.utf8).write(to: limits)
        for flag in ["--limits", "--recorded-limits"] {
            let result = try await runEmulator(["replay", "report", "events/free-user-limits", flag, limits.path])
            #expect(result.status == 2)
            #expect(result.standardError.contains("\(flag): \(limits.path): \(fault)"), "\(result.standardError)")
            #expect(result.standardOutput.isEmpty)
        }
    }

    @Test("replay report has no --update, replay check no --recorded-limits; an empty folder is a usage error")
    func usageErrors() async throws {
        let both = try await runEmulator(["replay", "report", "events", "--update"])
        #expect(both.status == 2)
        #expect(both.standardError.contains("Unknown option '--update'"), "\(both.standardError)")
        #expect(both.standardError.contains("inkra-emulator replay report --help"), "\(both.standardError)")

        let alone = try await runEmulator(["replay", "events", "--recorded-limits", "x.json"])
        #expect(alone.status == 2)
        #expect(alone.standardError.contains("Unknown option '--recorded-limits'"), "\(alone.standardError)")

        let scratch = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let empty = try await runEmulator(["replay", "report", scratch.path])
        #expect(empty.status == 2)
        #expect(empty.standardError.contains("no events found in \(scratch.path)"))
    }
}
