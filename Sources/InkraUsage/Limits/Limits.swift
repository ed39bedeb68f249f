/// How many units a user may consume in each window.
public struct Limits: Sendable, Hashable {
    /// Units per UTC calendar month.
    public var monthly: Int
    /// Units per UTC day.
    public var daily: Int
    /// Units per UTC hour.
    public var hourly: Int

    /// Creates limits.
    public init(monthly: Int, daily: Int, hourly: Int) {
        self.monthly = monthly
        self.daily = daily
        self.hourly = hourly
    }

    /// The limit of one window.
    package func limit(for window: UsageWindow) -> Int {
        switch window {
        case .month: monthly
        case .day: daily
        case .hour: hourly
        }
    }

    /// These limits with another monthly limit.
    package func withMonthly(_ monthly: Int) -> Limits {
        Limits(monthly: monthly, daily: daily, hourly: hourly)
    }

    /// The free tier's defaults: 5 a month, 3 a day, 2 an hour.
    public static let free = Limits(monthly: 5, daily: 3, hourly: 2)
    /// The premium tier's defaults: unlimited a month (stored as 999999), 100 a day, 20 an hour.
    package static let premium = Limits(monthly: unlimitedMonthly, daily: 100, hourly: 20)
    /// How "unlimited" is stored.
    package static let unlimitedMonthly = 999_999
}
