import Foundation
import InkraTime
import InkraUsage
import SingleTable

/// The usage store a deployed function uses, `TableUsageStore`, over an in-memory
/// table, optionally holding some usage already.
///
/// ```swift
/// // ada has used 4 of the month's 5, 1 of the day's 3 and none of the hour's 2.
/// let store = InMemoryUsageStore(seeded: ["ada": (month: 4, day: 1, hour: 0)], at: clock.now)
/// ```
///
/// Every operation runs the real store's transactions against `InMemoryTable`, so the items it
/// holds are the ones the functions leave in DynamoDB (this package's own tests read them back,
/// with `items` and `item(user:sortKey:)`).
public struct InMemoryUsageStore: UsageStore {
    /// The table's name.
    package static let tableName = "inkra-usage"

    /// The table, to read what the store wrote.
    package let table: InMemoryTable
    /// The store over it.
    package private(set) var store: TableUsageStore

    /// An empty store.
    /// - Parameter now: the table's clock (a ``ManualClock``'s `closure`, say), which only expires
    ///   DynamoDB client request tokens (the windows come from each request's instant).
    public init(now: @escaping @Sendable () -> Timestamp) {
        self.init(items: [], now: now)
    }

    /// A store holding each user's usage in the month, day and hour of `instant`, written as the
    /// store writes it (the month's `USAGE#` item, the day's and the hour's `RATELIMIT#` items).
    ///
    /// Only the windows of `instant` are written: a month count above the day's stands for calls
    /// on earlier days, whose items no read of `instant`'s windows looks at.
    /// - Parameters:
    ///   - usage: user → units used in the month, day and hour of `instant`; each at least the
    ///     next (a call in the hour is also in the day and the month).
    ///   - instant: the instant whose windows hold the usage (the seeded calls' time).
    ///   - limits: the limits the seeded calls were made under (the month item's `quotaLimit`).
    ///   - now: the table's clock, which only expires DynamoDB client request tokens; `instant`
    ///     when not given.
    public init(
        seeded usage: [String: (month: Int, day: Int, hour: Int)],
        at instant: Timestamp,
        limits: Limits = .free,
        now: (@Sendable () -> Timestamp)? = nil
    ) {
        let windows = UsageWindows(at: instant)
        var items: [Item] = []
        for (user, counts) in usage.sorted(by: { $0.key < $1.key }) {
            precondition(
                counts.month >= counts.day && counts.day >= counts.hour && counts.hour >= 0,
                "seeded usage of \(user) must have month >= day >= hour >= 0, not \(counts)")
            items += Self.items(user: user, counts, windows, limits: limits)
        }
        self.init(items: items, now: now ?? { instant })
    }

    private init(items: [Item], now: @escaping @Sendable () -> Timestamp) {
        table = InMemoryTable(schema: .singleTable(named: Self.tableName), items: items, now: now)
        store = TableUsageStore(table: table, tableName: Self.tableName)
    }

    /// Every item in the table, by key.
    package var items: [Item] { table.snapshot() }

    /// One item: `item(user: "ada", sortKey: "USAGE#2026-03")`, `"RATELIMIT#2026-03-10T10"`, from
    /// the user's partition (named by the keyed pseudonym of the id, as the store names it).
    package func item(user: String, sortKey: String) async throws -> Item? {
        let key: Item = ["PK": .s(store.partition(of: user)), "SK": .s(sortKey)]
        return try await table.getItem(GetItemRequest(tableName: Self.tableName, key: key, consistentRead: true)).item
    }

    // MARK: UsageStore

    public func consume(_ request: ConsumeRequest) async throws -> ConsumeOutcome {
        try await store.consume(request)
    }

    public func release(_ consumption: Consumption) async throws {
        try await store.release(consumption)
    }

    public func complete(_ consumption: Consumption, with response: StoredResponse) async throws {
        try await store.complete(consumption, with: response)
    }

    public func repairCharges(at instant: Timestamp) async throws -> ChargeRepair {
        try await store.repairCharges(at: instant)
    }

    public func usage(for userID: String, email: String?, at instant: Timestamp, limits: Limits) async throws
        -> UsageReport
    {
        try await store.usage(for: userID, email: email, at: instant, limits: limits)
    }

    public func refusedUsers(on day: String) async throws -> [String] {
        try await store.refusedUsers(on: day)
    }

    public func refusals(on day: String) async throws -> [RefusedUser] {
        try await store.refusals(on: day)
    }

    public func refund(_ units: Int, to userID: String, at instant: Timestamp, reference: String?) async throws
        -> UsageRefund
    {
        try await store.refund(units, to: userID, at: instant, reference: reference)
    }

    public func reset(_ window: UsageWindow, of userID: String, at instant: Timestamp) async throws -> WindowChange {
        try await store.reset(window, of: userID, at: instant)
    }

    public func erase(user userID: String) async throws -> UsageErasure {
        try await store.erase(user: userID)
    }

    public func closeAccount(of userID: String, email: String?, at instant: Timestamp) async throws -> UsageErasure {
        try await store.closeAccount(of: userID, email: email, at: instant)
    }

    // MARK: Seeding

    /// How long the store keeps each item after its window starts (its `expiresAt`, for DynamoDB
    /// TTL), in seconds: as `TableUsageStore` writes them, which a test holds.
    static let monthRetention = 400 * 86_400
    static let dayRetention = 3 * 86_400
    static let hourRetention = 2 * 86_400

    static func items(
        user: String, _ counts: (month: Int, day: Int, hour: Int), _ windows: UsageWindows, limits: Limits
    ) -> [Item] {
        let epoch = Int(windows.instant.timeIntervalSince1970)
        // The store's partition: the keyed pseudonym of the id, under the secret the store is given.
        func key(_ sort: String) -> Item {
            ["PK": .s("USER#" + ServerSecret.development.userKey(user)), "SK": .s(sort)]
        }
        var items: [Item] = []
        if counts.month > 0 {
            var month = key("USAGE#\(windows.month)")
            month["interviewCount"] = .n(counts.month)
            month["lastInterviewDate"] = .s(windows.timestamp)
            month["quotaLimit"] = .n(limits.monthly)
            month["resetDate"] = .s(windows.resetDate)
            month["expiresAt"] = .n(epoch + monthRetention)
            items.append(month)
        }
        if counts.day > 0 {
            var day = key("RATELIMIT#\(windows.day)")
            day["requestCount"] = .n(counts.day)
            day["firstRequestTime"] = .s(windows.timestamp)
            day["expiresAt"] = .n(epoch + dayRetention)
            items.append(day)
        }
        if counts.hour > 0 {
            var hour = key("RATELIMIT#\(windows.hour)")
            hour["requestCount"] = .n(counts.hour)
            hour["expiresAt"] = .n(epoch + hourRetention)
            items.append(hour)
        }
        return items
    }
}

extension InMemoryUsageStore: RequestBound {
    /// This store, its retries bounded by the request of `scope` (the table in memory never waits).
    package func bound(to scope: RequestScope) -> InMemoryUsageStore {
        var bound = self
        bound.store = store.bound(to: scope)
        return bound
    }
}
