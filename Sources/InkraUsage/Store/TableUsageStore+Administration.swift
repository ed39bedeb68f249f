import InkraTime
import SingleTable

/// Support's tools and the user's own deletion: refund, reset, erase.
///
/// Every expression is fixed text; the counter's name travels as `#count`, values as placeholders.
extension TableUsageStore {
    private enum AdministrationExpressions {
        static let setCount = "SET #count = :after"
        static let countIs = "#count = :before"
        static let resetCount = "SET #count = :zero"
        static let countAboveZero = "#count > :zero"
        static let recordAbsent = "attribute_not_exists(PK)"
        static let userItems = "PK = :user"
    }

    /// How many times a refund reads the counters again when a request changed them meanwhile.
    static let refundAttempts = 8

    /// How many passes an erasure makes over the user's partition before it gives up on requests
    /// that keep writing to it.
    static let erasePasses = 8

    package func refund(_ units: Int, to userID: String, at instant: Timestamp, reference: String?) async throws
        -> UsageRefund
    {
        let windows = UsageWindows(at: instant)
        let reference = reference ?? UsageRefund.defaultReference(units: units, at: instant)
        let recordKey = key(user: userID, sort: UsageKeys.refund(reference))
        let slots = UsageWindow.allCases.map { Slot($0, windows) }
        for _ in 0..<Self.refundAttempts {
            let items = try await items(
                at: [recordKey] + slots.map { key(user: userID, sort: $0.sortKey) }, operation: "refund")
            func count(_ slot: Slot) -> Int { items[slot.sortKey]?[slot.counter]?.intValue ?? 0 }
            if items[UsageKeys.refund(reference)] != nil {
                let unchanged = slots.map { $0.change(before: count($0), after: count($0)) }
                return UsageRefund(userID: userID, reference: reference, changes: unchanged, alreadyApplied: true)
            }
            let changes = slots.map { $0.change(before: count($0), after: max(0, count($0) - max(0, units))) }
            let refund = UsageRefund(userID: userID, reference: reference, changes: changes, alreadyApplied: false)
            guard changes.contains(where: \.changed) else { return refund }
            var record = recordKey
            record["units"] = .n(units)
            record["appliedAt"] = .s(windows.timestamp)
            record["expiresAt"] = .n(Int(instant.timeIntervalSince1970) + UsageKeys.Retention.month)
            var actions: [TransactWriteItem] = [
                .put(
                    PutItemRequest(
                        tableName: tableName, item: record,
                        conditionExpression: AdministrationExpressions.recordAbsent))
            ]
            for (slot, change) in zip(slots, changes) where change.changed {
                actions.append(
                    .update(
                        UpdateItemRequest(
                            tableName: tableName,
                            key: key(user: userID, sort: slot.sortKey),
                            updateExpression: AdministrationExpressions.setCount,
                            conditionExpression: AdministrationExpressions.countIs,
                            expressionAttributes: ExpressionAttributes(
                                names: ["#count": slot.counter],
                                values: [":after": .n(change.after), ":before": .n(change.before)]
                            )
                        )
                    )
                )
            }
            do {
                try await transact(actions)
            } catch let error as TableError where error.code == .transactionCanceled {
                // The record was written meanwhile, or a counter moved: read again.
                continue
            } catch {
                throw UsageStoreError(operation: "refund", underlying: error)
            }
            try await liftStandingRefusal(of: userID, operation: "refund")
            return refund
        }
        throw UsageStoreError(
            .contended, operation: "refund",
            "the counters of \(userID) kept changing during \(Self.refundAttempts) attempts; try again")
    }

    package func reset(_ window: UsageWindow, of userID: String, at instant: Timestamp) async throws -> WindowChange {
        let slot = Slot(window, UsageWindows(at: instant))
        let request = UpdateItemRequest(
            tableName: tableName,
            key: key(user: userID, sort: slot.sortKey),
            updateExpression: AdministrationExpressions.resetCount,
            conditionExpression: AdministrationExpressions.countAboveZero,
            expressionAttributes: ExpressionAttributes(names: ["#count": slot.counter], values: [":zero": .n(0)]),
            returnValues: .updatedOld
        )
        do {
            let old = try await update(request)
            try await liftStandingRefusal(of: userID, operation: "reset")
            return slot.change(before: old.attributes?[slot.counter]?.intValue ?? 0, after: 0)
        } catch let error as UsageStoreError {
            throw error
        } catch let error as TableError where error.code == .conditionalCheckFailed {
            return slot.change(before: 0, after: 0)
        } catch {
            throw UsageStoreError(operation: "reset", underlying: error)
        }
    }

    package func erase(user userID: String) async throws -> UsageErasure {
        try await erase(user: userID, keeping: [])
    }

    /// Deletes every item of a user but those whose sort key is in `kept` (a closed account's
    /// tombstones).
    func erase(user userID: String, keeping kept: Set<String>) async throws -> UsageErasure {
        var erasure = UsageErasure(userID: userID)
        for _ in 0..<Self.erasePasses {
            var found = 0
            let request = QueryRequest(
                tableName: tableName,
                keyConditionExpression: AdministrationExpressions.userItems,
                expressionAttributes: ExpressionAttributes(values: [":user": .s(partition(of: userID))]),
                consistentRead: true
            )
            try await queryAll(request, operation: "erase") { item in
                guard let sort = item[UsageKeys.sortKey]?.stringValue, !kept.contains(sort) else { return }
                found += 1
                let key = key(user: userID, sort: sort)
                do {
                    _ = try await retry.write(before: scope.deadline) {
                        try await table.deleteItem(DeleteItemRequest(tableName: tableName, key: key))
                    }
                } catch {
                    throw UsageStoreError(operation: "erase", underlying: error)
                }
                erasure.removedByKind[Self.kind(of: sort), default: 0] += 1
                if item[UsageKeys.indexPartitionKey]?.stringValue?.hasPrefix(UsageKeys.date("")) == true {
                    erasure.refusalMarks += 1
                }
            }
            // A pass that found nothing proves the partition empty; another request may have
            // written to it during a pass that deleted something.
            if found == 0 { return erasure }
        }
        throw UsageStoreError(
            .contended, operation: "erase",
            "items kept appearing under \(partition(of: userID)) during \(Self.erasePasses) passes; try again")
    }

    /// An item's kind, from its sort key: `month`, `day`, `hour`, `idempotency`, `refund`, or the
    /// prefix before `#`, lowercased.
    static func kind(of sortKey: String) -> String {
        let prefix = sortKey.prefix { $0 != "#" }
        let rest = sortKey.dropFirst(prefix.count + 1)
        switch prefix {
        case "USAGE": return "month"
        case "RATELIMIT": return rest.contains("T") ? "hour" : "day"
        default: return prefix.lowercased()
        }
    }

    /// Items by sort key, read consistently.
    private func items(at keys: [Item], operation: String) async throws -> [String: Item] {
        var found: [String: Item] = [:]
        for item in try await readAll(keys, operation: operation) {
            if let sort = item[UsageKeys.sortKey]?.stringValue { found[sort] = item }
        }
        return found
    }
}

/// One window's item and counter.
struct Slot {
    let window: UsageWindow
    let period: String
    let sortKey: String
    let counter: String

    init(_ window: UsageWindow, _ windows: UsageWindows) {
        self.window = window
        switch window {
        case .month:
            period = windows.month
            sortKey = UsageKeys.month(windows.month)
            counter = "interviewCount"
        case .day:
            period = windows.day
            sortKey = UsageKeys.rateLimit(windows.day)
            counter = "requestCount"
        case .hour:
            period = windows.hour
            sortKey = UsageKeys.rateLimit(windows.hour)
            counter = "requestCount"
        }
    }

    func change(before: Int, after: Int) -> WindowChange {
        WindowChange(window: window, period: period, before: before, after: after)
    }
}
