import DynamoDBTable
import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTime
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
        limits = (stack.options.limitsFile.flatMap { try? TierLimits(contentsOfFile: $0.path) }) ?? TierLimits()
    }

    /// The stack's "now": `--now` when fixed, else its clock.
    var now: Timestamp { stack.options.now ?? stack.options.clock() }

    /// The ids the stack knows (its pool's users, the callers of its requests) by the partition
    /// that holds each one's items: the table keeps no id, only keyed pseudonyms.
    func knownUsers() -> [String: String] {
        let ids = Set(feed.callers.keys).union((try? pool?.listUsers(filter: nil).map(\.sub)) ?? [])
        return Dictionary(ids.map { (stack.store.partition(of: $0), $0) }) { first, _ in first }
    }

    /// Every user with items in the table, each with the month, day and hour of now against the
    /// limits of the tier its latest request carried, else the tier of its latest refusal mark
    /// (free when neither is known). A user is named by its id when the stack knows it, else by
    /// its partition's pseudonym.
    func users() async throws -> JSONValue {
        let instant = now
        let (items, truncated) = try await scan()
        let known = knownUsers()
        var seen = Set<String>()
        var markedTiers: [String: (day: String, tier: String)] = [:]
        let partitions = items.compactMap { item -> String? in
            guard case .s(let partition) = item["PK"], partition.hasPrefix("USER#") else { return nil }
            if case .s(let tier) = item["tier"], case .s(let day) = item["SK"],
                day > markedTiers[partition]?.day ?? ""
            {
                markedTiers[partition] = (day, tier)
            }
            return seen.insert(partition).inserted ? partition : nil
        }
        let callers = feed.callers
        var rows: [(name: String, row: JSONValue)] = []
        for partition in partitions {
            let id = known[partition]
            let caller = id.flatMap { callers[$0] }
            let tier = caller?.tier ?? markedTiers[partition]?.tier
            var userLimits = limits.limits(forTier: tier ?? "free")
            if let quota = caller?.quota { userLimits = userLimits.withMonthly(quota) }
            let report = try await stack.store.usage(
                inPartition: partition, email: nil, at: instant, limits: userLimits)
            let name = id ?? String(partition.dropFirst("USER#".count))
            rows.append(
                (
                    name,
                    [
                        "userId": .string(name),
                        "idKnown": .bool(id != nil),
                        "partition": .string(partition),
                        "tier": .string(tier ?? "free"),
                        "tierKnown": .bool(tier != nil),
                        "month": Self.window(report.monthly),
                        "day": Self.window(report.daily),
                        "hour": Self.window(report.hourly),
                    ]
                ))
        }
        return [
            "now": .string(UsageWindows.iso8601(instant)), "today": .string(UsageWindows(at: instant).day),
            "users": .array(rows.sorted { $0.name < $1.name }.map(\.row)), "truncated": .bool(truncated),
        ]
    }

    /// The users refused on a UTC day, through the index (`UsageStore.refusals(on:)`).
    func refused(on day: String) async throws -> JSONValue {
        let refusals = try await stack.store.refusals(on: day)
        let known = knownUsers()
        return [
            "date": .string(day),
            "users": .array(
                refusals.map { refusal in
                    [
                        "userId": .string(known["USER#" + refusal.userID] ?? refusal.userID),
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
