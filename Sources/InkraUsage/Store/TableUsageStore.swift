import InkraTime
import SingleTable

/// A ``UsageStore`` over any `Table` with the single-table design of docs/table.md.
///
/// A consume is one `TransactWriteItems` of three conditional `ADD`s (month, day, hour), plus the
/// idempotency record's put when the call carries a key, so the unit and the record are written
/// together or not at all. The position of the failed condition in the cancellation reasons says
/// which window was full. Before it, one eventually consistent read of the user's standing refusal
/// (docs/table.md) answers a call that would be refused again without any write.
///
/// A function calls the store bound to its request (``bound(to:)``): every retry, and every call
/// of the table, stays within the request's deadline, clean-up within its clean-up deadline, and
/// the table's calls go in the request's trace.
package struct TableUsageStore: UsageStore, RequestBound {
    /// The table, bound to the request the store is bound to (``bound(to:)``).
    package private(set) var table: any Table
    /// Its name, sent with every request.
    package let tableName: String
    /// What keys the users' partitions, the sealed answers and the carried usage of deleted
    /// accounts.
    package let secret: ServerSecret
    /// The request the store's calls are made for; none by default.
    private(set) var scope = RequestScope()
    /// How writes that meet another request on their items are retried.
    var retry = Retry()

    /// A store over a table.
    /// - Parameters:
    ///   - table: the table.
    ///   - tableName: its name.
    ///   - secret: the server's secret; the development one unless the caller holds another (the
    ///     runtime requires one inside Lambda).
    package init(table: any Table, tableName: String, secret: ServerSecret = .development) {
        self.table = table
        self.tableName = tableName
        self.secret = secret
    }

    /// This store, making its calls for the request of `scope`, through its table bound to it.
    package func bound(to scope: RequestScope) -> TableUsageStore {
        var store = self
        store.scope = scope
        store.table = table.bound(to: scope)
        return store
    }

    /// This store for the request's clean-up (a give-back, a completion, a charge's outcome):
    /// bound to the clean-up deadline, past the work's.
    func cleaningUp() -> TableUsageStore { bound(to: scope.cleaningUp()) }

    /// The partition of a user's items: `USER#` and the keyed pseudonym of the user id, so the
    /// table holds no user id (docs/table.md).
    package func partition(of userID: String) -> String { UsageKeys.userPrefix + secret.userKey(userID) }

    /// The key of one of a user's items.
    func key(user userID: String, sort: String) -> Item {
        UsageKeys.key(partition: partition(of: userID), sort: sort)
    }

    package func consume(_ request: ConsumeRequest) async throws -> ConsumeOutcome {
        let windows = UsageWindows(at: request.instant)
        if let refusal = await standingRefusal(request, windows) { return .refused(refusal) }
        // A first call of the month with an email opens the month (carrying over what a deleted
        // account of the same address used), then charges; at most twice, as another call may
        // open it meanwhile. With nothing to carry, the charge goes on as for a caller without one.
        var request = request
        for _ in 0..<2 {
            if let outcome = try await charge(request, windows) { return outcome }
            if try await !openMonth(request, windows) { request.email = nil }
        }
        guard let outcome = try await charge(request, windows) else {
            throw UsageStoreError(.contended, operation: "consume", "the month could not be opened; try again")
        }
        return outcome
    }

    /// The consume transaction and what came of it; `nil` when the month must be opened first.
    private func charge(_ request: ConsumeRequest, _ windows: UsageWindows) async throws -> ConsumeOutcome? {
        var actions: [TransactWriteItem] = UsageWindow.allCases.map { .update(counterUpdate($0, request, windows)) }
        var consumption = Consumption(
            userID: request.userID,
            instant: windows.instant,
            idempotencyKey: request.idempotencyKey
        )
        if let key = request.idempotencyKey {
            let attempt = Self.newAttempt()
            consumption.attempt = attempt
            actions.append(
                .put(
                    recordPut(
                        request, IdempotencySeal(key: key, userID: request.userID, secret: secret), windows, attempt
                    )))
        }
        var token: String?
        do {
            try await transact(actions, lastToken: &token)
        } catch let error as TableError where error.code == .transactionCanceled && !error.isTransientCancellation {
            // A condition's answer, known even after an unknown attempt: under the same token,
            // DynamoDB would have answered an applied transaction with success.
            return try await outcome(of: error, request, windows, attempt: consumption.attempt)
        } catch let error as TableError where error.followsUnknownOutcome {
            throw await unknownCharge(actions, token: token, consumption, error)
        } catch {
            throw UsageStoreError(operation: "consume", underlying: error)
        }
        return try await charged(consumption, limits: request.limits)
    }

    /// The error for a charge whose outcome was never learned (a timeout, a dropped connection):
    /// the transaction is sent again with its token, in the clean-up budget, to learn whether it
    /// applied; if it did, the error carries the charge, for the caller to give back.
    private func unknownCharge(
        _ actions: [TransactWriteItem], token: String?, _ consumption: Consumption, _ error: TableError
    ) async -> UsageStoreError {
        // Only a request with a deadline has a clean-up budget to learn the outcome in.
        guard let token, scope.deadline != nil else {
            return UsageStoreError(operation: "consume", underlying: error)
        }
        do {
            let applied = try await cleaningUp().resend(actions, token: token)
            return UsageStoreError(operation: "consume", underlying: error, charged: applied ? consumption : nil)
        } catch {
            // Still unknown: with an idempotency key its record stays for a retry or the repair.
            return UsageStoreError(operation: "consume", underlying: error)
        }
    }

    /// A charge known to stand, with the month's usage read back.
    /// - Throws: ``UsageStoreError`` with ``UsageStoreError/charged`` set when the read fails, so
    ///   that the caller gives the unit back rather than leaving it charged without an answer.
    func charged(_ consumption: Consumption, limits: Limits) async throws -> ConsumeOutcome {
        let windows = UsageWindows(at: consumption.instant)
        let month: Item?
        do {
            month = try await read(partition: partition(of: consumption.userID), sort: UsageKeys.month(windows.month))
        } catch let error as UsageStoreError {
            throw UsageStoreError(operation: "read usage after charging", underlying: error, charged: consumption)
        }
        let used = month?["interviewCount"]?.intValue ?? 1
        return .consumed(
            consumption,
            monthly: WindowUsage(used: used, limit: limits.monthly, resetsAt: windows.monthResetsAt)
        )
    }

    package func usage(for userID: String, email: String?, at instant: Timestamp, limits: Limits) async throws
        -> UsageReport
    {
        try await usage(inPartition: partition(of: userID), email: email, at: instant, limits: limits)
    }

    /// ``usage(for:email:at:limits:)`` of the user whose partition is `partition`, for a reader of
    /// the table that holds no id (serve's console).
    package func usage(inPartition partition: String, email: String?, at instant: Timestamp, limits: Limits)
        async throws -> UsageReport
    {
        let windows = UsageWindows(at: instant)
        let slots = UsageWindow.allCases.map { Slot($0, windows) }
        let items = try await readAll(
            slots.map { UsageKeys.key(partition: partition, sort: $0.sortKey) }, operation: "read usage")
        func item(_ slot: Slot) -> Item? { items.first { $0[UsageKeys.sortKey] == .s(slot.sortKey) } }
        let month = item(slots[0])
        // Not opened yet: what a deleted account of the same address used waits to be carried over.
        var carried = Carry()
        if month == nil, let email { carried = try await carry(of: secret.emailKey(email), windows) }
        func usage(_ slot: Slot, carried: Int) -> WindowUsage {
            WindowUsage(
                used: (item(slot)?[slot.counter]?.intValue ?? 0) + carried, limit: limits.limit(for: slot.window),
                resetsAt: windows.resetsAt(slot.window))
        }
        return UsageReport(
            monthly: usage(slots[0], carried: carried.month),
            daily: usage(slots[1], carried: carried.day),
            hourly: usage(slots[2], carried: carried.hour),
            resetDate: windows.resetDate,
            accountClosed: month?[AccountAttribute.closedUntil] != nil
        )
    }

    package func refusedUsers(on day: String) async throws -> [String] {
        try await refusals(on: day).map(\.userID)
    }

    package func refusals(on day: String) async throws -> [RefusedUser] {
        var users: [RefusedUser] = []
        let request = QueryRequest(
            tableName: tableName,
            indexName: UsageKeys.index,
            keyConditionExpression: "GSI1PK = :date",
            expressionAttributes: ExpressionAttributes(values: [":date": .s(UsageKeys.date(day))])
        )
        try await queryAll(request, operation: "list refused users") { item in
            guard let sort = item[UsageKeys.indexSortKey]?.stringValue, sort.hasPrefix(UsageKeys.userPrefix) else {
                return
            }
            users.append(
                RefusedUser(
                    userID: String(sort.dropFirst(UsageKeys.userPrefix.count)),
                    tier: item["tier"]?.stringValue,
                    window: item["refusedWindow"]?.stringValue.flatMap(UsageWindow.init(rawValue:)),
                    blockedUntil: item["blockedUntil"]?.stringValue
                )
            )
        }
        return users
    }

    /// Runs a query page after page, handing each item to `body`.
    /// - Throws: ``UsageStoreError`` naming `operation` when a page cannot be read; what `body` throws.
    func queryAll(
        _ request: QueryRequest, operation: String, _ body: (Item) async throws -> Void
    ) async throws {
        var request = request
        repeat {
            let page: QueryResponse
            do {
                page = try await table.query(request)
            } catch {
                throw UsageStoreError(operation: operation, underlying: error)
            }
            for item in page.items { try await body(item) }
            request.exclusiveStartKey = page.lastEvaluatedKey
        } while request.exclusiveStartKey != nil
    }

    // MARK: - The consume transaction

    /// The positions of the consume transaction's actions, as its cancellation reasons list them:
    /// the windows' counters in `UsageWindow.allCases` order (month, day, hour), then the record.
    private enum ConsumeSlot {
        static let month = 0
        static let record = 3
    }

    /// The transaction's expressions, built once (the table parses each text once too).
    private enum Expressions {
        static let monthUpdate =
            "SET lastInterviewDate = :now, quotaLimit = :limit, resetDate = :reset, expiresAt = :expires "
            + "ADD interviewCount :one"
        /// The month's condition: below the limit, and not a deleted account's tombstone.
        static let monthCondition =
            "(attribute_not_exists(interviewCount) OR interviewCount < :limit) AND attribute_not_exists(closedUntil)"
        /// The same for a caller with an email, whose month must have been opened
        /// (`openMonth(_:_:)`) so that a deleted account's usage is carried over.
        static let openedMonthCondition =
            "attribute_exists(interviewCount) AND interviewCount < :limit AND attribute_not_exists(closedUntil)"
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

    /// One window's update in the consume transaction: one more unit, if the window is below its
    /// limit (and, for the month, not a deleted account's tombstone).
    private func counterUpdate(_ window: UsageWindow, _ request: ConsumeRequest, _ windows: UsageWindows)
        -> UpdateItemRequest
    {
        let epoch = Int(windows.instant.timeIntervalSince1970)
        var values: [String: AttributeValue] = [":limit": .n(request.limits.limit(for: window)), ":one": .n(1)]
        let (update, condition): (String, String)
        switch window {
        case .month:
            update = Expressions.monthUpdate
            condition = request.email == nil ? Expressions.monthCondition : Expressions.openedMonthCondition
            values[":now"] = .s(windows.timestamp)
            values[":reset"] = .s(windows.resetDate)
            values[":expires"] = .n(epoch + UsageKeys.Retention.month)
        case .day:
            (update, condition) = (Expressions.dayUpdate, Expressions.requestCondition)
            values[":now"] = .s(windows.timestamp)
            values[":expires"] = .n(epoch + UsageKeys.Retention.day)
        case .hour:
            (update, condition) = (Expressions.hourUpdate, Expressions.requestCondition)
            values[":expires"] = .n(epoch + UsageKeys.Retention.hour)
        }
        return UpdateItemRequest(
            tableName: tableName,
            key: key(user: request.userID, sort: Slot(window, windows).sortKey),
            updateExpression: update,
            conditionExpression: condition,
            expressionAttributes: ExpressionAttributes(values: values),
            returnValuesOnConditionCheckFailure: .allOld
        )
    }

    // MARK: - Refusals

    private func outcome(
        of error: TableError,
        _ request: ConsumeRequest,
        _ windows: UsageWindows,
        attempt ours: String?
    ) async throws -> ConsumeOutcome? {
        let reasons = error.cancellationReasons
        func failed(_ index: Int) -> TableError.CancellationReason? {
            guard index < reasons.count, reasons[index].isConditionFailure else { return nil }
            return reasons[index]
        }
        if let record = failed(ConsumeSlot.record), let key = request.idempotencyKey {
            let seal = IdempotencySeal(key: key, userID: request.userID, secret: secret)
            let old: Item
            if let item = record.item {
                old = item
            } else if let item = try await read(
                partition: partition(of: request.userID), sort: UsageKeys.idempotency(seal.recordID))
            {
                old = item
            } else {
                throw UsageStoreError(operation: "consume", underlying: error)
            }
            return try await resolve(existing: old, request, seal, windows, attempt: ours)
        }
        if let month = failed(ConsumeSlot.month) {
            // A deleted account's tombstone, or (for a caller with an email) a month not yet opened.
            if month.item?[AccountAttribute.closedUntil] != nil { return .closed }
            if request.email != nil, month.item?["interviewCount"] == nil { return nil }
        }
        for (index, window) in UsageWindow.allCases.enumerated() {
            guard let reason = failed(index) else { continue }
            var refusal = Refusal(
                window: window,
                limit: request.limits.limit(for: window),
                used: reason.item?[Slot(window, windows).counter]?.intValue ?? request.limits.limit(for: window),
                resetsAt: windows.resetsAt(window),
                retryAfter: windows.secondsUntilReset(window),
                resetDate: windows.resetDate
            )
            refusal.recorded = await markRefused(request, windows, refusal)
            return .refused(refusal)
        }
        throw UsageStoreError(operation: "consume", underlying: error)
    }

    /// Marks the user's day item so the GSI1 query "who was refused on a date" finds them, with
    /// the refusing window and the caller's tier, and writes the user's standing refusal that the
    /// next calls read before any write (`standingRefusal(_:_:)`). The marks are clean-up the
    /// caller's 429 waits for: they get ``refusalMarkBudget`` of the clean-up budget, retried with
    /// backoff within it, and a mark that still fails never changes the refusal.
    /// - Returns: whether the day's mark was written (and then the standing refusal).
    private func markRefused(_ consume: ConsumeRequest, _ windows: UsageWindows, _ refusal: Refusal) async -> Bool {
        let epoch = Int(windows.instant.timeIntervalSince1970)
        var values: [String: AttributeValue] = [
            ":date": .s(UsageKeys.date(windows.day)),
            ":user": .s(partition(of: consume.userID)),
            ":until": .s(UsageWindows.iso8601(refusal.resetsAt)),
            ":window": .s(refusal.window.rawValue),
            ":expires": .n(epoch + UsageKeys.Retention.day),
        ]
        if let tier = consume.tier { values[":tier"] = .s(tier) }
        let request = UpdateItemRequest(
            tableName: tableName,
            key: key(user: consume.userID, sort: UsageKeys.rateLimit(windows.day)),
            updateExpression: consume.tier == nil ? Expressions.markRefused : Expressions.markRefusedWithTier,
            expressionAttributes: ExpressionAttributes(values: values)
        )
        let standing = standingRefusalUpdate(consume, refusal, windows)
        let marking = bound(to: scope.cleaningUp(atMost: Self.refusalMarkBudget))
        // The day's mark first: a standing refusal answers the day's next refusals without
        // writing, so it is written only once the day's mark is.
        guard await marking.written(request) else { return false }
        _ = await marking.written(standing)
        return true
    }

    /// Whether an update went through.
    private func written(_ request: UpdateItemRequest) async -> Bool {
        do {
            _ = try await update(request)
            return true
        } catch {
            return false
        }
    }

    /// How long a refusal's mark may take: the 429 is not held back longer, and a throttled table
    /// is not retried against for the whole clean-up budget for an index entry.
    static let refusalMarkBudget: Duration = .milliseconds(500)

    /// One item of a partition, read consistently.
    func read(partition: String, sort: String) async throws -> Item? {
        do {
            let request = GetItemRequest(
                tableName: tableName,
                key: UsageKeys.key(partition: partition, sort: sort),
                consistentRead: true
            )
            return try await table.getItem(request).item
        } catch {
            throw UsageStoreError(operation: "read", underlying: error)
        }
    }
}
