import EmulatorKit
import Foundation
import InkraJSON
import InkraTestSupport
import InkraUsage
import Testing

@Suite("limits lint: the boundary bursts of calendar windows")
struct LimitsLintTests {
    @Test("Free 5/3/2: 4 calls in a rolling hour, 6 in 24 hours, 13 in 30 days around a February of 28 days")
    func freeTier() {
        let free = LimitsLint.bounds(tier: "free", .free)
        // Two an hour at 23:59 on a month's last day and two at 00:00: two hours, days and months.
        #expect(free.rollingHour == 4)
        // Three at the end of one day and three at the start of the next.
        #expect(free.rollingDay == 6)
        // January 31 (3), all of February (5), March 1–2 (5): a rolling 30 days touches three months.
        #expect(free.rollingThirtyDays == 13)
        #expect(free.calendarMonth == 5)
    }

    @Test("Premium 999999/100/20: 40 an hour, 200 in 24 hours, 3100 in 30 days; a month holds 3100")
    func premiumTier() {
        let premium = LimitsLint.bounds(tier: "premium", Limits(monthly: 999_999, daily: 100, hourly: 20))
        #expect(premium.rollingHour == 40)
        #expect(premium.rollingDay == 200)
        #expect(premium.rollingThirtyDays == 3100)
        #expect(premium.calendarMonth == 3100)
    }

    @Test("One a day: two in a rolling hour across midnight, two months' limits in a rolling 30 days")
    func oneADay() {
        // 1 a day, 1 an hour: a rolling hour holds 2 only across midnight; 30 days hold 31 days' calls,
        // capped at the month's 10 in each of two months.
        let bounds = LimitsLint.bounds(tier: "t", Limits(monthly: 10, daily: 1, hourly: 1))
        #expect(bounds.rollingHour == 2)
        #expect(bounds.rollingDay == 2)
        #expect(bounds.rollingThirtyDays == 20)
    }

    @Test("The command prints each tier and the month at --users; a bad file names itself; --json")
    func commandLine() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("limits.json")
        try Data(#"{"free": {"monthly": 5, "daily": 3, "hourly": 2}}"#.utf8).write(to: file)
        let text = try await runEmulator(["limits", "lint", file.path, "--users", "100"])
        #expect(text.status == 0, "\(text.standardError)")
        #expect(
            text.standardOutput.contains(
                "  free (5/month, 3/day, 2/hour): 4 in an hour, 6 in 24 hours, 13 in 30 days "
                    + "(boundary bursts: an hour 4 > 2, a day 6 > 3, 30 days 13 > 5)"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("  all free: 100 × 5 = 500"))
        #expect(text.standardOutput.contains("  all premium: 100 × 3100 = 310000"))
        let json = try await runEmulator(["limits", "lint", file.path, "--json"])
        let object = try JSONParser.parse(json.standardOutput)
        #expect(object["tiers"]?["free"]?["rollingThirtyDays"] == 13)
        #expect(object["tiers"]?["premium"]?["modelCallsPerMonthAtUsers"] == 3_100_000)
        try Data(#"{"free": {"hourly": "two"}}"#.utf8).write(to: file)
        let bad = try await runEmulator(["limits", "lint", file.path])
        #expect(bad.status == 2)
        #expect(bad.standardError.contains("limits.json"), "\(bad.standardError)")
    }
}
