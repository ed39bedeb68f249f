import Foundation
import InkraTime
import InkraUsage

extension WhatIfReport {
    /// The report as `replay report` prints it: what was compared; first, the calls answered
    /// otherwise for reasons that are not the limits (a refused token, a failure), which no limits
    /// explain; the limits; then each tier's changes with their first examples, and the files that
    /// could not be replayed.
    package var text: String {
        var lines: [String] = []
        lines.append(
            "What if: \(Self.count(events, "event")) replayed under \(limitsFile ?? "the default limits"); "
                + "\(Self.count(compared, "metered call")) compared with \(compared == 1 ? "its" : "their") recording.")
        if changedOtherwiseCalls > 0 {
            let transitions = changedOtherwise.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
                .map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            lines.append(
                "  First: \(Self.count(changedOtherwiseCalls, "call")) answered otherwise than recorded, not by the "
                    + "limits (\(transitions)): a token refused, a failure or another starting table; "
                    + "the limits' figures below do not explain \(changedOtherwiseCalls == 1 ? "it" : "them").")
        }
        lines.append("  limits: " + Self.describe(limits))
        switch algorithm {
        case .calendar: break
        case .slidingWindow:
            lines.append(
                "  algorithm: sliding window (the same limits over the rolling hour, 24 hours and 30 days "
                    + "before each call), decided over the recorded instants")
        case .tokenBucket:
            lines.append(
                "  algorithm: token bucket (per window, a bucket of `limit` tokens refilled at limit / window "
                    + "length; 30 days for the month), decided over the recorded instants")
        }
        var skipped: [String] = []
        if notMetered > 0 { skipped.append("\(Self.count(notMetered, "event")) not metered") }
        if answeredOtherwise > 0 {
            skipped.append("\(Self.count(answeredOtherwise, "call")) not decided by the limits (400, 401, …)")
        }
        if withoutRecording > 0 { skipped.append("\(Self.count(withoutRecording, "call")) without a recorded status") }
        if !problems.isEmpty { skipped.append("\(Self.count(problems.count, "file")) not replayed") }
        if !skipped.isEmpty { lines.append("  not compared: " + skipped.joined(separator: ", ")) }
        if tiers.isEmpty { lines.append("No metered call to compare.") }
        for tier in tiers { lines += Self.lines(for: tier) }
        let changed = changedCalls
        var summary =
            changed == 0
            ? "No call would be admitted or refused differently"
            : "\(Self.count(changed, "call")) would be admitted or refused differently"
        if changedOtherwiseCalls > 0 {
            summary += "; \(Self.count(changedOtherwiseCalls, "call")) changed for other reasons than the limits"
        }
        lines.append(summary + ".")
        for problem in problems { lines.append("  not replayed: \(problem.file): \(problem.problem)") }
        return lines.joined(separator: "\n")
    }

    private static func lines(for tier: TierChanges) -> [String] {
        var lines: [String] = []
        let unchanged = "\(tier.stillAdmitted) still admitted, \(tier.stillRefused) still refused"
        guard tier.changes else {
            lines.append("\(tier.tier): no change (\(unchanged))")
            return lines
        }
        lines.append("\(tier.tier): \(count(tier.usersAffected, "user")) affected (\(unchanged))")
        if tier.admittedToRefusedTotal.calls > 0 {
            lines.append("  admitted → refused: " + figures(tier.admittedToRefusedTotal))
            for window in UsageWindow.allCases {
                guard let change = tier.admittedToRefused[window], change.calls > 0 else { continue }
                lines.append("    by the \(window.rawValue): " + figures(change))
                lines += change.examples.map { "      " + example($0) }
            }
        }
        for (title, change) in [
            ("refused → admitted", tier.refusedToAdmitted),
            ("refused by another window", tier.refusedByAnotherWindow),
            ("changed otherwise (not by the limits)", tier.otherChanges),
        ] where change.calls > 0 {
            lines.append("  \(title): " + figures(change))
            lines += change.examples.map { "    " + example($0) }
        }
        return lines
    }

    private static func figures(_ change: Change) -> String {
        "\(count(change.calls, "call")), \(count(change.users, "user"))"
    }

    /// One example: request id, user, when, and what became of it then and now.
    private static func example(_ call: MeteredCall) -> String {
        var text = call.reference
        if let user = call.userID { text += "  user \(user)" }
        if let time = call.recordedAt { text += "  at \(CivilTime.iso8601(time))" }
        return text + "  \(call.recorded.description) → \(call.replayed.description)"
    }

    /// `free 5/month, 3/day, 1/hour; premium …`.
    static func describe(_ limits: TierLimits) -> String {
        limits.tiers.keys.sorted().compactMap { tier in
            limits.tiers[tier].map { "\(tier) \($0.monthly)/month, \($0.daily)/day, \($0.hourly)/hour" }
        }.joined(separator: "; ")
    }

    static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}

extension Admission: CustomStringConvertible {
    /// `admitted`, `refused (hour)`, `refused`, `400`, `failed`.
    package var description: String {
        switch self {
        case .admitted: "admitted"
        case .refused(let window?): "refused (\(window.rawValue))"
        case .refused(nil): "refused"
        case .other(let status?): String(status)
        case .other(nil): "failed"
        }
    }
}
