import Foundation
import InkraJSON
import InkraTime
import InkraUsage

/// `limits lint`: what calendar windows let through. The limits count calls per UTC clock hour,
/// day and month; a user who calls at the end of one window and the start of the next makes up to
/// twice a window's limit in a rolling one (2 calls at 10:59 and 2 at 11:00 under 2 an hour). This
/// finds, per tier, the most calls a user can make in any rolling hour, 24 hours and 30 days, and
/// the most calls to the model a calendar month can hold at a number of users.
package struct LimitsLint: Sendable {
    /// One tier's bounds.
    package struct TierBounds: Sendable, Hashable {
        /// The tier.
        package var tier: String
        /// Its calendar limits.
        package var limits: Limits
        /// The most calls in any rolling hour.
        package var rollingHour: Int
        /// The most calls in any rolling 24 hours.
        package var rollingDay: Int
        /// The most calls in any rolling 30 days.
        package var rollingThirtyDays: Int
        /// The most calls in one calendar month (31 days).
        package var calendarMonth: Int
    }

    /// The rolling spans, in hours.
    static let spans = (hour: 1, day: 24, thirtyDays: 720)

    /// Every clock hour of the calendar the lint walks: all of 2027 (February of 28 days, so a
    /// rolling 30 days can touch three months) and 2028 (a leap year) and a month after; each
    /// hour's day and month as running indexes.
    private static let calendar: (day: [Int], month: [Int]) = {
        let start = Timestamp(timeIntervalSince1970: 1_798_761_600)  // 2027-01-01T00:00:00Z
        let hours = (365 + 366 + 31) * 24
        var days: [Int] = []
        var months: [Int] = []
        days.reserveCapacity(hours)
        months.reserveCapacity(hours)
        for hour in 0..<hours {
            let civil = CivilTime(start.addingTimeInterval(Double(hour) * 3600))
            days.append(hour / 24)
            months.append(civil.year * 12 + civil.month)
        }
        return (days, months)
    }()

    /// The bounds of every tier, by name.
    package static func bounds(of limits: TierLimits) -> [TierBounds] {
        limits.tiers.keys.sorted().compactMap { tier in
            limits.tiers[tier].map { bounds(tier: tier, $0) }
        }
    }

    /// One tier's bounds.
    package static func bounds(tier: String, _ limits: Limits) -> TierBounds {
        TierBounds(
            tier: tier, limits: limits,
            rollingHour: mostCalls(in: spans.hour, limits),
            rollingDay: mostCalls(in: spans.day, limits),
            rollingThirtyDays: mostCalls(in: spans.thirtyDays, limits),
            calendarMonth: min(limits.monthly, 31 * min(limits.daily, 24 * limits.hourly)))
    }

    /// The most calls a user can make in a rolling span of `hours` hours: over every placement of
    /// the span that starts inside an hour (so it touches `hours + 1` clock hours, the most it can),
    /// each clock hour gives its limit, each day the least of its limit and its hours' sum, each
    /// month the least of its limit and its days' sum — the nested windows' capacities, which a
    /// user reaches by calling at the right instants.
    static func mostCalls(in hours: Int, _ limits: Limits) -> Int {
        let (days, months) = calendar
        var most = 0
        for start in 0..<(days.count - hours) {
            var total = 0
            var monthSum = 0
            var dayHours = 0
            for hour in start...(start + hours) {
                dayHours += 1
                let lastOfDay = hour == start + hours || days[hour + 1] != days[hour]
                guard lastOfDay else { continue }
                monthSum += min(limits.daily, dayHours * limits.hourly)
                dayHours = 0
                if hour == start + hours || months[hour + 1] != months[hour] {
                    total += min(limits.monthly, monthSum)
                    monthSum = 0
                }
            }
            most = max(most, total)
        }
        return most
    }

    /// `limits lint`'s text: a line per tier, then the model's calls a month at `users` users.
    package static func text(_ bounds: [TierBounds], users: Int) -> String {
        var lines: [String] = [
            "Most calls one user can make, in any rolling window (calendar windows reset at UTC hours, days, months):"
        ]
        for tier in bounds {
            let limits = tier.limits
            lines.append(
                "  \(tier.tier) (\(limits.monthly)/month, \(limits.daily)/day, \(limits.hourly)/hour): "
                    + "\(tier.rollingHour) in an hour, \(tier.rollingDay) in 24 hours, "
                    + "\(tier.rollingThirtyDays) in 30 days"
                    + burst(tier))
        }
        lines.append("Most calls to the model in one calendar month (31 days), at \(users) users:")
        for tier in bounds {
            lines.append(
                "  all \(tier.tier): \(users) × \(tier.calendarMonth) = \(users * tier.calendarMonth)")
        }
        return lines.joined(separator: "\n")
    }

    /// ` — boundary bursts: hour ×2, …` when a rolling window passes its calendar limit.
    private static func burst(_ tier: TierBounds) -> String {
        var over: [String] = []
        let limits = tier.limits
        if tier.rollingHour > limits.hourly { over.append("an hour \(tier.rollingHour) > \(limits.hourly)") }
        if tier.rollingDay > limits.daily { over.append("a day \(tier.rollingDay) > \(limits.daily)") }
        if tier.rollingThirtyDays > limits.monthly {
            over.append("30 days \(tier.rollingThirtyDays) > \(limits.monthly)")
        }
        return over.isEmpty ? "" : " (boundary bursts: \(over.joined(separator: ", ")))"
    }

    /// The lint as `--json` prints it.
    package static func json(_ bounds: [TierBounds], users: Int) -> JSONValue {
        var tiers = JSONObject()
        for tier in bounds {
            tiers[tier.tier] = [
                "limits": tier.limits.json,
                "rollingHour": .number(tier.rollingHour), "rollingDay": .number(tier.rollingDay),
                "rollingThirtyDays": .number(tier.rollingThirtyDays), "calendarMonth": .number(tier.calendarMonth),
                "modelCallsPerMonthAtUsers": .number(users * tier.calendarMonth),
            ]
        }
        return ["users": .number(users), "tiers": .object(tiers)]
    }
}
