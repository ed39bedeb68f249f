import SingleTable

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A ``UsageStore`` over any `Table` with the single-table design of docs/table.md.
///
/// A consume is one `TransactWriteItems` of three conditional `ADD`s (month, day, hour), plus the
/// idempotency record's put when the call carries a key, so the unit and the record are written
/// together or not at all. The position of the failed condition in the cancellation reasons says
/// which window was full.
public struct TableUsageStore: UsageStore {
    /// The table.
    public let table: any Table
    /// Its name, sent with every request.
    public let tableName: String

    /// A store over a table.
    public init(table: any Table, tableName: String) {
        self.table = table
        self.tableName = tableName
    }

    public func consume(_ request: ConsumeRequest) async throws -> ConsumeOutcome {
        let windows = UsageWindows(at: request.instant)
        let epoch = Int(windows.instant.timeIntervalSince1970)
        var actions: [TransactWriteItem] = [
            .update(monthUpdate(request, windows, epoch)),
            .update(dayUpdate(request, windows, epoch)),
            .update(hourUpdate(request, windows, epoch)),
        ]
        if let key = request.idempotencyKey {
            actions.append(.put(idempotencyPut(request, IdempotencySeal(key: key, userID: request.userID), epoch)))
        }
        let consumption = Consumption(
            userID: request.userID,
            instant: windows.instant,
            idempotencyKey: request.idempotencyKey
        )
        do {
            try await transact(actions)
        } catch let error as TableError where error.code == .transactionCanceled {
            return try await outcome(of: error, request, windows)
        } catch {
            throw UsageStoreError(operation: "consume", underlying: error)
        }
        let month = try await read(user: request.userID, sort: UsageKeys.month(windows.month))
        let used = month?["interviewCount"]?.intValue ?? 1
        return .consumed(
            consumption,
            monthly: WindowUsage(used: used, limit: request.limits.monthly, resetsAt: windows.monthResetsAt)
        )
    }

    public func release(_ consumption: Consumption) async throws {
        let windows = UsageWindows(at: consumption.instant)
        let values: [String: AttributeValue] = [":minusOne": .n(-1), ":zero": .n(0)]
        func giveBack(_ sort: String, _ counter: String) -> TransactWriteItem {
            .update(
                UpdateItemRequest(
                    tableName: tableName,
                    key: UsageKeys.key(user: consumption.userID, sort: sort),
                    updateExpression: "ADD \(counter) :minusOne",
                    conditionExpression: "\(counter) > :zero",
                    expressionAttributes: ExpressionAttributes(values: values)
                )
            )
        }
        var actions = [
            giveBack(UsageKeys.month(windows.month), "interviewCount"),
            giveBack(UsageKeys.rateLimit(windows.day), "requestCount"),
            giveBack(UsageKeys.rateLimit(windows.hour), "requestCount"),
        ]
        if let key = consumption.idempotencyKey {
            actions.append(
                .delete(
                    DeleteItemRequest(
                        tableName: tableName,
                        key: UsageKeys.key(
                            user: consumption.userID,
                            sort: UsageKeys.idempotency(IdempotencySeal(key: key, userID: consumption.userID).recordID)
                        )
                    )
                )
            )
        }
        do {
            try await transact(actions)
        } catch {
            throw UsageStoreError(operation: "release", underlying: error)
        }
    }

    public func complete(_ consumption: Consumption, with response: StoredResponse) async throws {
        guard let key = consumption.idempotencyKey else { return }
        let seal = IdempotencySeal(key: key, userID: consumption.userID)
        let sealed: String
        do {
            sealed = try seal.seal(response)
        } catch {
            throw UsageStoreError(operation: "complete", underlying: error)
        }
        let epoch = Int(consumption.instant.timeIntervalSince1970)
        let request = UpdateItemRequest(
            tableName: tableName,
            key: UsageKeys.key(user: consumption.userID, sort: UsageKeys.idempotency(seal.recordID)),
            updateExpression: "SET #status = :completed, sealedResponse = :sealed, expiresAt = :expires",
            expressionAttributes: ExpressionAttributes(
                names: ["#status": "status"],
                values: [
                    ":completed": .s(IdempotencyStatus.completed),
                    ":sealed": .s(sealed),
                    ":expires": .n(epoch + UsageKeys.Retention.idempotency),
                ]
            )
        )
        do {
            _ = try await update(request)
        } catch {
            throw UsageStoreError(operation: "complete", underlying: error)
        }
    }

    public func usage(for userID: String, at instant: Date, limits: Limits) async throws -> UsageReport {
        let windows = UsageWindows(at: instant)
        let keys = [
            UsageKeys.key(user: userID, sort: UsageKeys.month(windows.month)),
            UsageKeys.key(user: userID, sort: UsageKeys.rateLimit(windows.day)),
            UsageKeys.key(user: userID, sort: UsageKeys.rateLimit(windows.hour)),
        ]
        var items: [Item] = []
        var pending = [tableName: KeysAndAttributes(keys: keys, consistentRead: true)]
        do {
            while !pending.isEmpty {
                let response = try await table.batchGetItem(BatchGetItemRequest(requestItems: pending))
                items += response.responses[tableName] ?? []
                pending = response.unprocessedKeys
            }
        } catch {
            throw UsageStoreError(operation: "read usage", underlying: error)
        }
        func count(_ sort: String, _ counter: String) -> Int {
            let item = items.first { $0[UsageKeys.sortKey] == .s(sort) }
            return item?[counter]?.intValue ?? 0
        }
        return UsageReport(
            monthly: WindowUsage(
                used: count(UsageKeys.month(windows.month), "interviewCount"),
                limit: limits.monthly,
                resetsAt: windows.monthResetsAt
            ),
            daily: WindowUsage(
                used: count(UsageKeys.rateLimit(windows.day), "requestCount"),
                limit: limits.daily,
                resetsAt: windows.dayResetsAt
            ),
            hourly: WindowUsage(
                used: count(UsageKeys.rateLimit(windows.hour), "requestCount"),
                limit: limits.hourly,
                resetsAt: windows.hourResetsAt
            ),
            resetDate: windows.resetDate
        )
    }

    public func refusedUsers(on day: String) async throws -> [String] {
        try await refusals(on: day).map(\.userID)
    }

    public func refusals(on day: String) async throws -> [RefusedUser] {
        var users: [RefusedUser] = []
        var start: Item?
        repeat {
            let page: QueryResponse
            do {
                page = try await table.query(
                    QueryRequest(
                        tableName: tableName,
                        indexName: "GSI1",
                        keyConditionExpression: "GSI1PK = :date",
                        expressionAttributes: ExpressionAttributes(values: [":date": .s(UsageKeys.date(day))]),
                        exclusiveStartKey: start
                    )
                )
            } catch {
                throw UsageStoreError(operation: "list refused users", underlying: error)
            }
            for item in page.items {
                if let sort = item["GSI1SK"]?.stringValue, sort.hasPrefix("USER#") {
                    users.append(
                        RefusedUser(
                            userID: String(sort.dropFirst(5)),
                            tier: item["tier"]?.stringValue,
                            window: item["refusedWindow"]?.stringValue.flatMap(UsageWindow.init(rawValue:)),
                            blockedUntil: item["blockedUntil"]?.stringValue
                        )
                    )
                }
            }
            start = page.lastEvaluatedKey
        } while start != nil
        return users
    }

    // MARK: - The consume transaction

    /// The transaction's expressions, built once (the table parses each text once too).
    private enum Expressions {
        static let monthUpdate =
            "SET lastInterviewDate = :now, quotaLimit = :limit, resetDate = :reset, expiresAt = :expires "
            + "ADD interviewCount :one"
        static let monthCondition = "attribute_not_exists(interviewCount) OR interviewCount < :limit"
        static let dayUpdate =
            "SET firstRequestTime = if_not_exists(firstRequestTime, :now), expiresAt = :expires "
            + "ADD requestCount :one"
        static let hourUpdate = "SET expiresAt = :expires ADD requestCount :one"
        static let requestCondition = "attribute_not_exists(requestCount) OR requestCount < :limit"
        static let markRefused =
            "SET GSI1PK = :date, GSI1SK = :user, blockedUntil = :until, refusedWindow = :window, "
            + "expiresAt = if_not_exists(expiresAt, :expires)"
        static let markRefusedWithTier = markRefused + ", tier = :tier"
    }

    private func monthUpdate(_ request: ConsumeRequest, _ windows: UsageWindows, _ epoch: Int) -> UpdateItemRequest {
        UpdateItemRequest(
            tableName: tableName,
            key: UsageKeys.key(user: request.userID, sort: UsageKeys.month(windows.month)),
            updateExpression: Expressions.monthUpdate,
            conditionExpression: Expressions.monthCondition,
            expressionAttributes: ExpressionAttributes(values: [
                ":now": .s(windows.timestamp),
                ":limit": .n(request.limits.monthly),
                ":reset": .s(windows.resetDate),
                ":expires": .n(epoch + UsageKeys.Retention.month),
                ":one": .n(1),
            ]),
            returnValuesOnConditionCheckFailure: .allOld
        )
    }

    private func dayUpdate(_ request: ConsumeRequest, _ windows: UsageWindows, _ epoch: Int) -> UpdateItemRequest {
        UpdateItemRequest(
            tableName: tableName,
            key: UsageKeys.key(user: request.userID, sort: UsageKeys.rateLimit(windows.day)),
            updateExpression: Expressions.dayUpdate,
            conditionExpression: Expressions.requestCondition,
            expressionAttributes: ExpressionAttributes(values: [
                ":now": .s(windows.timestamp),
                ":limit": .n(request.limits.daily),
                ":expires": .n(epoch + UsageKeys.Retention.day),
                ":one": .n(1),
            ]),
            returnValuesOnConditionCheckFailure: .allOld
        )
    }

    private func hourUpdate(_ request: ConsumeRequest, _ windows: UsageWindows, _ epoch: Int) -> UpdateItemRequest {
        UpdateItemRequest(
            tableName: tableName,
            key: UsageKeys.key(user: request.userID, sort: UsageKeys.rateLimit(windows.hour)),
            updateExpression: Expressions.hourUpdate,
            conditionExpression: Expressions.requestCondition,
            expressionAttributes: ExpressionAttributes(values: [
                ":limit": .n(request.limits.hourly),
                ":expires": .n(epoch + UsageKeys.Retention.hour),
                ":one": .n(1),
            ]),
            returnValuesOnConditionCheckFailure: .allOld
        )
    }

    /// The in-progress mark: it lives as long as the request may (its deadline), so a call that
    /// crashed or timed out between consume and completion locks its key out for seconds, not a
    /// day.
    private func idempotencyPut(_ request: ConsumeRequest, _ seal: IdempotencySeal, _ epoch: Int) -> PutItemRequest {
        var item = UsageKeys.key(user: request.userID, sort: UsageKeys.idempotency(seal.recordID))
        item["status"] = .s(IdempotencyStatus.inProgress)
        item["requestDigest"] = .s(seal.fingerprint(of: request.requestBody))
        item["expiresAt"] = .n(epoch + Self.inProgressLifetime())
        return PutItemRequest(
            tableName: tableName,
            item: item,
            conditionExpression: "attribute_not_exists(PK) OR expiresAt <= :now",
            expressionAttributes: ExpressionAttributes(values: [":now": .n(epoch)]),
            returnValuesOnConditionCheckFailure: .allOld
        )
    }

    // MARK: - Refusals

    private func outcome(
        of error: TableError,
        _ request: ConsumeRequest,
        _ windows: UsageWindows
    ) async throws -> ConsumeOutcome {
        let reasons = error.cancellationReasons
        func failed(_ index: Int) -> TableError.CancellationReason? {
            guard index < reasons.count, reasons[index].code == "ConditionalCheckFailed" else { return nil }
            return reasons[index]
        }
        if let record = failed(3), let key = request.idempotencyKey {
            let seal = IdempotencySeal(key: key, userID: request.userID)
            let old: Item
            if let item = record.item {
                old = item
            } else if let item = try await read(user: request.userID, sort: UsageKeys.idempotency(seal.recordID)) {
                old = item
            } else {
                throw UsageStoreError(operation: "consume", underlying: error)
            }
            guard old["requestDigest"]?.stringValue == seal.fingerprint(of: request.requestBody) else {
                return .keyReused
            }
            if old["status"]?.stringValue == IdempotencyStatus.completed,
                let sealed = old["sealedResponse"]?.stringValue,
                let response = seal.open(sealed)
            {
                return .repeated(response)
            }
            return .inProgress
        }
        let counters: [(UsageWindow, Int, String)] = [
            (.month, 0, "interviewCount"), (.day, 1, "requestCount"), (.hour, 2, "requestCount"),
        ]
        for (window, index, counter) in counters {
            guard let reason = failed(index) else { continue }
            let refusal = Refusal(
                window: window,
                limit: request.limits.limit(for: window),
                used: reason.item?[counter]?.intValue ?? request.limits.limit(for: window),
                resetsAt: windows.resetsAt(window),
                retryAfter: windows.secondsUntilReset(window),
                resetDate: windows.resetDate
            )
            try await markRefused(request, windows, refusal)
            return .refused(refusal)
        }
        throw UsageStoreError(operation: "consume", underlying: error)
    }

    /// Marks the user's day item so the GSI1 query "who was refused on a date" finds them, with
    /// the refusing window and the caller's tier.
    private func markRefused(_ consume: ConsumeRequest, _ windows: UsageWindows, _ refusal: Refusal) async throws {
        let epoch = Int(windows.instant.timeIntervalSince1970)
        var values: [String: AttributeValue] = [
            ":date": .s(UsageKeys.date(windows.day)),
            ":user": .s(UsageKeys.user(consume.userID)),
            ":until": .s(UsageWindows.iso8601(refusal.resetsAt)),
            ":window": .s(refusal.window.rawValue),
            ":expires": .n(epoch + UsageKeys.Retention.day),
        ]
        if let tier = consume.tier { values[":tier"] = .s(tier) }
        let request = UpdateItemRequest(
            tableName: tableName,
            key: UsageKeys.key(user: consume.userID, sort: UsageKeys.rateLimit(windows.day)),
            updateExpression: consume.tier == nil ? Expressions.markRefused : Expressions.markRefusedWithTier,
            expressionAttributes: ExpressionAttributes(values: values)
        )
        do {
            _ = try await update(request)
        } catch {
            throw UsageStoreError(operation: "mark refusal", underlying: error)
        }
    }

    private func read(user userID: String, sort: String) async throws -> Item? {
        do {
            let request = GetItemRequest(
                tableName: tableName,
                key: UsageKeys.key(user: userID, sort: sort),
                consistentRead: true
            )
            return try await table.getItem(request).item
        } catch {
            throw UsageStoreError(operation: "read", underlying: error)
        }
    }
}

extension TableUsageStore {
    /// Seconds an in-progress mark lives when the request has no deadline (API Gateway's
    /// integration timeout, rounded up).
    static let inProgressLifetimeWithoutDeadline = 30

    /// Seconds an in-progress mark lives: until the request's deadline, at least one second.
    static func inProgressLifetime() -> Int {
        guard let left = RequestDeadline.remaining() else { return inProgressLifetimeWithoutDeadline }
        return max(1, Int(left.components.seconds) + (left.components.attoseconds > 0 ? 1 : 0))
    }
}

/// The `status` of an idempotency record.
enum IdempotencyStatus {
    static let inProgress = "INPROGRESS"
    static let completed = "COMPLETED"
}
