import DynamoDBTable
import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraUsage
import LocalUserPool
import SingleTable

/// What the console's Users and Table pages show, read from the stack's table and usage store.
/// It only reads.
struct ConsoleReader: Sendable {
    let stack: EmulatorStack
    let feed: ConsoleFeed
    let limits: TierLimits
    /// The most items a page reads from the table.
    static let itemLimit = 1000

    /// `serve`'s local user pool, when it runs one.
    var pool: UserPool? { stack.localAccounts.pool }

    init(stack: EmulatorStack, feed: ConsoleFeed) {
        self.stack = stack
        self.feed = feed
        limits = (stack.options.limitsFile.flatMap { try? TierLimits(contentsOf: $0) }) ?? TierLimits()
    }

    /// The stack's "now": `--now` when fixed, else its clock.
    var now: Date { stack.options.now ?? stack.options.clock() }

    /// Every user with items in the table, each with the month, day and hour of now against the
    /// limits of the tier its latest request carried, else the tier of its latest refusal mark
    /// (free when neither is known).
    func users() async throws -> JSONValue {
        let instant = now
        let (items, truncated) = try await scan()
        var seen = Set<String>()
        var markedTiers: [String: (day: String, tier: String)] = [:]
        let users = items.compactMap { item -> String? in
            guard case .s(let key) = item["PK"], key.hasPrefix("USER#") else { return nil }
            let user = String(key.dropFirst("USER#".count))
            if case .s(let tier) = item["tier"], case .s(let day) = item["SK"], day > markedTiers[user]?.day ?? "" {
                markedTiers[user] = (day, tier)
            }
            return seen.insert(user).inserted ? user : nil
        }.sorted()
        let callers = feed.callers
        var rows: [JSONValue] = []
        for user in users {
            let caller = callers[user]
            let known = caller?.tier ?? markedTiers[user]?.tier
            let tier = known ?? "free"
            var userLimits = limits.limits(forTier: tier)
            if let quota = caller?.quota { userLimits = userLimits.withMonthly(quota) }
            let report = try await stack.store.usage(for: user, at: instant, limits: userLimits)
            rows.append([
                "userId": .string(user),
                "tier": .string(tier),
                "tierKnown": .bool(known != nil),
                "month": Self.window(report.monthly),
                "day": Self.window(report.daily),
                "hour": Self.window(report.hourly),
            ])
        }
        return [
            "now": .string(UsageWindows.iso8601(instant)), "today": .string(UsageWindows(at: instant).day),
            "users": .array(rows), "truncated": .bool(truncated),
        ]
    }

    /// The users refused on a UTC day, through the index (`UsageStore.refusals(on:)`).
    func refused(on day: String) async throws -> JSONValue {
        let refusals = try await stack.store.refusals(on: day)
        return [
            "date": .string(day),
            "users": .array(
                refusals.map { refusal in
                    [
                        "userId": .string(refusal.userID),
                        "tier": refusal.tier.map(JSONValue.string) ?? .null,
                        "window": refusal.window.map { .string($0.rawValue) } ?? .null,
                        "blockedUntil": refusal.blockedUntil.map(JSONValue.string) ?? .null,
                    ]
                }),
        ]
    }

    /// The table's items as DynamoDB writes them (`{"PK":{"S":…}}`), of one partition when
    /// `partition` is given, in key order.
    func items(partition: String?) async throws -> JSONValue {
        var items: [Item]
        var truncated = false
        if let partition {
            items = []
            var start: Item?
            repeat {
                let page = try await stack.table.query(
                    QueryRequest(
                        tableName: stack.options.tableName, keyConditionExpression: "PK = :pk",
                        expressionAttributes: ExpressionAttributes(values: [":pk": .s(partition)]),
                        exclusiveStartKey: start, consistentRead: true))
                items += page.items
                start = page.lastEvaluatedKey
                truncated = start != nil && items.count >= Self.itemLimit
            } while start != nil && !truncated
        } else {
            (items, truncated) = try await scan()
        }
        items.sort { Self.sortKey($0) < Self.sortKey($1) }
        return [
            "items": .array(items.map(Wire.item)), "count": .number(items.count), "truncated": .bool(truncated),
        ]
    }

    /// Scans the table, up to ``itemLimit`` items.
    private func scan() async throws -> (items: [Item], truncated: Bool) {
        var items: [Item] = []
        var start: Item?
        repeat {
            let page = try await stack.table.scan(
                ScanRequest(tableName: stack.options.tableName, exclusiveStartKey: start, consistentRead: true))
            items += page.items
            start = page.lastEvaluatedKey
        } while start != nil && items.count < Self.itemLimit
        return (items, start != nil)
    }

    private static func sortKey(_ item: Item) -> String {
        func text(_ name: String) -> String {
            if case .s(let value) = item[name] { return value }
            return ""
        }
        return text("PK") + "\u{0}" + text("SK")
    }

    private static func window(_ usage: WindowUsage) -> JSONValue {
        [
            "used": .number(usage.used), "limit": .number(usage.limit), "remaining": .number(usage.remaining),
            "resetsAt": .string(UsageWindows.iso8601(usage.resetsAt)),
        ]
    }

    /// Whether `text` is a date `YYYY-MM-DD`.
    static func isDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0].count == 4 && parts[1].count == 2 && parts[2].count == 2
            && parts.allSatisfy { $0.allSatisfy { $0.isASCII && $0.isNumber } }
    }
}
