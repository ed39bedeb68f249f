import Foundation
import Testing

@testable import InkraUsage

@Suite("Tier limits")
struct TierLimitsTests {
    @Test("Defaults of docs/limits.md")
    func defaults() {
        let limits = TierLimits()
        #expect(limits.limits(forTier: "free") == Limits(monthly: 5, daily: 3, hourly: 2))
        #expect(limits.limits(forTier: "premium") == Limits(monthly: 999_999, daily: 100, hourly: 20))
        #expect(limits.limits(forTier: "gold") == limits.limits(forTier: "free"))
    }

    @Test("A limits file overrides only what it names")
    func partialFile() throws {
        let json = #"{"free":{"daily":4},"premium":{"monthly":500,"hourly":30}}"#
        let limits = try TierLimits(json: Array(json.utf8))
        #expect(limits.limits(forTier: "free") == Limits(monthly: 5, daily: 4, hourly: 2))
        #expect(limits.limits(forTier: "premium") == Limits(monthly: 500, daily: 100, hourly: 30))
    }

    @Test(
        "A bad limits file names the field",
        arguments: [
            (#"{"free":{"daily":0}}"#, "free.daily must be a positive integer"),
            (#"{"free":{"daily":"3"}}"#, "free.daily must be a positive integer"),
            (#"{"free":{"daily":2.5}}"#, "free.daily must be a positive integer"),
            (#"{"free":{"daily":true}}"#, "free.daily must be a positive integer"),
            (#"{"free":{"weekly":3}}"#, "free.weekly is not a limit"),
            (#"{"free":3}"#, "free must be an object"),
            (#"[1,2]"#, "must be a JSON object"),
            (#"{"free":"#, "must be a JSON object"),
        ]
    )
    func badFile(json: String, message: String) {
        #expect {
            try TierLimits(json: Array(json.utf8), source: "limits.json")
        } throws: { error in
            let description = String(describing: error)
            return description.hasPrefix("limits.json: ") && description.contains(message)
        }
    }

    @Test("A missing limits file is named in the error")
    func missingFile() {
        #expect {
            try TierLimits(contentsOfFile: "/nonexistent/limits.json")
        } throws: { error in
            String(describing: error).contains("/nonexistent/limits.json")
        }
    }
}
