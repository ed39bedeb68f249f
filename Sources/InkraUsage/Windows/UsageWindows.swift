import InkraTime

/// One of the three calendar windows a unit of usage is counted in.
public enum UsageWindow: String, Sendable, Hashable, CaseIterable {
    /// The UTC calendar month.
    case month
    /// The UTC calendar day.
    case day
    /// The UTC clock hour.
    case hour
}

/// The UTC calendar windows an instant falls in, and when each resets.
package struct UsageWindows: Sendable, Hashable {
    /// The instant, to the whole second.
    package let instant: Timestamp
    /// `YYYY-MM`.
    package let month: String
    /// `YYYY-MM-DD`.
    package let day: String
    /// `YYYY-MM-DDTHH`.
    package let hour: String
    /// The instant as `YYYY-MM-DDTHH:MM:SSZ`.
    package let timestamp: String
    /// The first instant of the next month.
    package let monthResetsAt: Timestamp
    /// The next UTC midnight.
    package let dayResetsAt: Timestamp
    /// The first instant of the next hour.
    package let hourResetsAt: Timestamp
    /// The first day of the next month, `YYYY-MM-01`.
    package let resetDate: String

    /// The windows of an instant.
    package init(at instant: Timestamp) {
        self = Self.lastSecond.value(for: Int(instant.timeIntervalSince1970.rounded(.down))) {
            Self(computing: instant)
        }
    }

    /// Every request of one second has the same windows: the last second's are kept.
    private static let lastSecond = LastValue<Int, UsageWindows>()

    private init(computing instant: Timestamp) {
        let civil = CivilTime(instant)
        self.instant = civil.date
        month = civil.monthKey
        day = civil.dayKey
        hour = civil.hourKey
        timestamp = civil.iso8601
        let nextMonth = civil.startOfNextMonth
        monthResetsAt = nextMonth.date
        dayResetsAt = civil.startOfNextDay.date
        hourResetsAt = civil.startOfNextHour.date
        resetDate = nextMonth.dayKey
    }

    /// When a window resets.
    package func resetsAt(_ window: UsageWindow) -> Timestamp {
        switch window {
        case .month: monthResetsAt
        case .day: dayResetsAt
        case .hour: hourResetsAt
        }
    }

    /// Whole seconds from the instant to a window's reset, at least 1.
    package func secondsUntilReset(_ window: UsageWindow) -> Int {
        max(1, Int(resetsAt(window).timeIntervalSince(instant).rounded(.up)))
    }

    /// Formats an instant as `YYYY-MM-DDTHH:MM:SSZ`.
    package static func iso8601(_ instant: Timestamp) -> String {
        CivilTime(instant).iso8601
    }
}
