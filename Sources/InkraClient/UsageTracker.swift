import Foundation

/// The usage the app last saw, for its screens only (remaining questions, when the limit lifts).
///
/// The server is the only authority on usage: it admits or refuses every call whatever the app
/// shows. The tracker keeps the figures of the last answer that carried any (`usage()`, a
/// `generateQuestions` answer, a 429) in memory, and hands each new snapshot to a hook the app
/// may use to persist it (a `Codable` value); an app restores it with `init(restoring:…)`.
public actor UsageTracker {
    /// What the tracker knows, and when it learned it.
    public struct Snapshot: Sendable, Codable, Equatable {
        /// The month's figures, once an answer has said so.
        public var monthly: MonthlyUsage?
        /// When the month starts again, once an answer has said so.
        public var resetDate: Date?
        /// The caller's tier, once `usage()` has said so.
        public var tier: String?
        /// The day's figures, once an answer has said so.
        public var daily: WindowUsage?
        /// The hour's figures, once an answer has said so.
        public var hourly: WindowUsage?
        /// When the figures were last updated.
        public var observedAt: Date

        /// A snapshot, as an app restores it.
        /// - Parameters:
        ///   - monthly: the month's figures.
        ///   - resetDate: when the month starts again.
        ///   - tier: the caller's tier.
        ///   - daily: the day's figures.
        ///   - hourly: the hour's figures.
        ///   - observedAt: when they were seen.
        init(
            monthly: MonthlyUsage? = nil, resetDate: Date? = nil, tier: String? = nil, daily: WindowUsage? = nil,
            hourly: WindowUsage? = nil, observedAt: Date
        ) {
            self.monthly = monthly
            self.resetDate = resetDate
            self.tier = tier
            self.daily = daily
            self.hourly = hourly
            self.observedAt = observedAt
        }
    }

    /// The last figures seen, or `nil` before any answer carried usage.
    public private(set) var snapshot: Snapshot?
    private let persist: @Sendable (Snapshot) async -> Void
    private let now: @Sendable () -> Date

    /// A tracker.
    /// - Parameters:
    ///   - snapshot: figures saved by an earlier run, if any.
    ///   - now: the time, for ``Snapshot/observedAt``: the app's clock (`{ Date() }`), read where the app
    ///     puts its pieces together, or a test's.
    ///   - persist: called with every new snapshot, e.g. to save it as JSON.
    public init(
        restoring snapshot: Snapshot? = nil, now: @escaping @Sendable () -> Date,
        persist: @escaping @Sendable (Snapshot) async -> Void = { _ in }
    ) {
        self.snapshot = snapshot
        self.now = now
        self.persist = persist
    }

    /// Forgets the figures (when the user signs out).
    public func reset() {
        snapshot = nil
    }

    /// Takes `GET /usage`'s answer: every figure.
    func record(_ usage: Usage) async {
        await store(
            Snapshot(
                monthly: usage.monthly, resetDate: usage.resetDate, tier: usage.tier, daily: usage.daily,
                hourly: usage.hourly, observedAt: now()))
    }

    /// Takes a `POST /questions` answer's month; the day and the hour stay as last seen.
    func record(monthly: MonthlyUsage) async {
        var next = snapshot ?? Snapshot(observedAt: now())
        next.monthly = monthly
        next.observedAt = now()
        await store(next)
    }

    /// Takes a 429's window: it is full until `retryAfter` seconds from now.
    func recordFull(_ window: LimitWindow, limit: Int, used: Int? = nil, retryAfter: Int, resetDate: Date? = nil)
        async
    {
        let observed = now()
        let full = WindowUsage(used: limit, limit: limit, resetAt: observed.addingTimeInterval(Double(retryAfter)))
        var next = snapshot ?? Snapshot(observedAt: observed)
        switch window {
        case .month:
            let used = used ?? limit
            next.monthly = MonthlyUsage(used: used, limit: limit, remaining: max(0, limit - used))
            next.resetDate = resetDate ?? full.resetAt
        case .day: next.daily = full
        case .hour: next.hourly = full
        }
        next.observedAt = observed
        await store(next)
    }

    private func store(_ next: Snapshot) async {
        snapshot = next
        await persist(next)
    }
}
