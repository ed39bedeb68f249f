import InkraTime
import SingleTable

/// Deleting an account without resetting its meter (docs/table.md, "Deleted accounts").
///
/// A Cognito token stays valid after its user is deleted, until it expires, and API Gateway may
/// answer from its authorizer cache for longer; and the same person may sign up again with the
/// same address. So deleting an account erases its items but two things, each kept only as long
/// as it is needed:
/// - a **tombstone**: `closedUntil` on the month items of every month the account's tokens may
///   still be used in (`closedAccountSeconds`), which the consume transaction's month condition
///   and `checkUsage` check, so no function answers that account again;
/// - its **carried usage**: the units it used in the month, day and hour of its deletion, under
///   the keyed hash of its email (``ServerSecret/emailKey(_:)``, never the address), until each
///   window ends. An account that calls with the same verified email opens its month with them
///   (`openMonth(_:_:)`), so the windows count both accounts' calls.
extension TableUsageStore {
    /// How long a deleted account's tokens are refused: Cognito's longest ID and access token
    /// validity (one day) and API Gateway's longest authorizer cache TTL (one hour).
    package static let closedAccountSeconds = 25 * 3600

    /// A tombstone's attribute on a month item.
    enum AccountAttribute {
        static let closedUntil = "closedUntil"
    }

    /// Units a deleted account of the same email used in the windows of an instant.
    struct Carry {
        var month = 0
        var day = 0
        var hour = 0
        /// Every item found under the email's partition, to delete once carried over.
        var sortKeys: [String] = []
    }

    /// Erases an account's usage as ``erase(user:)`` does, but for its tombstones, after carrying
    /// what it used in the windows of `instant` over to its email's keyed hash.
    /// - Parameters:
    ///   - userID: the account.
    ///   - email: its verified email, when known; without one nothing is carried over.
    ///   - instant: now.
    package func closeAccount(of userID: String, email: String?, at instant: Timestamp) async throws -> UsageErasure {
        let windows = UsageWindows(at: instant)
        let epoch = Int(windows.instant.timeIntervalSince1970)
        let closedUntil = epoch + Self.closedAccountSeconds
        let lastMonth = UsageWindows(at: Timestamp(timeIntervalSince1970: Double(closedUntil))).month
        let months = windows.month == lastMonth ? [windows.month] : [windows.month, lastMonth]
        func write(_ request: UpdateItemRequest) async throws {
            do {
                _ = try await update(request)
            } catch {
                throw UsageStoreError(operation: "close the account", underlying: error)
            }
        }
        // First the tombstones: from then on no call of the account is charged, so the counts
        // read next are final, and a retry after a failure reads the same.
        for month in months {
            let tombstone = UpdateItemRequest(
                tableName: tableName,
                key: key(user: userID, sort: UsageKeys.month(month)),
                updateExpression:
                    "SET #closed = :until, expiresAt = :until REMOVE lastInterviewDate, quotaLimit, resetDate",
                expressionAttributes: ExpressionAttributes(
                    names: ["#closed": AccountAttribute.closedUntil], values: [":until": .n(closedUntil)])
            )
            try await write(tombstone)
        }
        if let email {
            try await carryOver(userID, to: secret.emailKey(email), windows)
        }
        // Carried (or nothing to carry): the tombstone keeps nothing but its date.
        try await write(
            UpdateItemRequest(
                tableName: tableName, key: key(user: userID, sort: UsageKeys.month(windows.month)),
                updateExpression: "REMOVE interviewCount"))
        return try await erase(user: userID, keeping: Set(months.map(UsageKeys.month)))
    }

    /// Writes the account's counts of the windows of now under the email's partition: each a `SET`
    /// to the larger of what is there and the account's count, so a retry changes nothing.
    private func carryOver(_ userID: String, to emailKey: String, _ windows: UsageWindows) async throws {
        let slots = UsageWindow.allCases.map { Slot($0, windows) }
        let items = try await readAll(slots.map { key(user: userID, sort: $0.sortKey) }, operation: "close the account")
        for slot in slots {
            let (sort, counter, ends) = (slot.sortKey, slot.counter, windows.resetsAt(slot.window))
            let count = items.first { $0[UsageKeys.sortKey] == .s(sort) }?[counter]?.intValue ?? 0
            guard count > 0 else { continue }
            let request = UpdateItemRequest(
                tableName: tableName,
                key: UsageKeys.key(emailKey: emailKey, sort: sort),
                updateExpression: "SET #count = :count, expiresAt = :ends",
                conditionExpression: "attribute_not_exists(#count) OR #count < :count",
                expressionAttributes: ExpressionAttributes(
                    names: ["#count": counter],
                    values: [":count": .n(count), ":ends": .n(Int(ends.timeIntervalSince1970))])
            )
            do {
                _ = try await update(request)
            } catch let error as TableError where error.code == .conditionalCheckFailed {
                continue  // already carried, by an earlier attempt of this deletion
            } catch {
                throw UsageStoreError(operation: "close the account", underlying: error)
            }
        }
    }

    /// What a deleted account of the email used in the windows of now, read eventually
    /// consistently (half a read unit): it was written when that account was deleted, before this
    /// account could sign up.
    func carry(of emailKey: String, _ windows: UsageWindows) async throws -> Carry {
        var carry = Carry()
        let request = QueryRequest(
            tableName: tableName,
            keyConditionExpression: "PK = :email",
            expressionAttributes: ExpressionAttributes(values: [":email": .s(UsageKeys.email(emailKey))])
        )
        try await queryAll(request, operation: "read carried usage") { item in
            guard let sort = item[UsageKeys.sortKey]?.stringValue else { return }
            carry.sortKeys.append(sort)
            switch sort {
            case UsageKeys.month(windows.month): carry.month = item["interviewCount"]?.intValue ?? 0
            case UsageKeys.rateLimit(windows.day): carry.day = item["requestCount"]?.intValue ?? 0
            case UsageKeys.rateLimit(windows.hour): carry.hour = item["requestCount"]?.intValue ?? 0
            default: break
            }
        }
        return carry
    }

    /// Opens the caller's month: its item written with what a deleted account of the same email
    /// used (its day and hour too), and that carried usage deleted, in one transaction. When
    /// another call opened the month first, or the account is closed, nothing is written and the
    /// consume that follows decides.
    /// - Returns: `false` when there is nothing to carry over: nothing is written, and the
    ///   consume goes on as for a caller without an email.
    func openMonth(_ request: ConsumeRequest, _ windows: UsageWindows) async throws -> Bool {
        guard let email = request.email else { return false }
        let emailKey = secret.emailKey(email)
        let carried = try await carry(of: emailKey, windows)
        guard !carried.sortKeys.isEmpty else { return false }
        let epoch = Int(windows.instant.timeIntervalSince1970)
        var month = key(user: request.userID, sort: UsageKeys.month(windows.month))
        month["interviewCount"] = .n(carried.month)
        month["resetDate"] = .s(windows.resetDate)
        month["expiresAt"] = .n(epoch + UsageKeys.Retention.month)
        var actions: [TransactWriteItem] = [
            .put(PutItemRequest(tableName: tableName, item: month, conditionExpression: "attribute_not_exists(PK)"))
        ]
        let rates = [
            (UsageKeys.rateLimit(windows.day), carried.day, UsageKeys.Retention.day),
            (UsageKeys.rateLimit(windows.hour), carried.hour, UsageKeys.Retention.hour),
        ]
        for (sort, count, retention) in rates where count > 0 {
            actions.append(
                .update(
                    UpdateItemRequest(
                        tableName: tableName,
                        key: key(user: request.userID, sort: sort),
                        updateExpression: "SET expiresAt = if_not_exists(expiresAt, :expires) ADD requestCount :count",
                        expressionAttributes: ExpressionAttributes(values: [
                            ":count": .n(count), ":expires": .n(epoch + retention),
                        ])
                    )))
        }
        for sort in carried.sortKeys {
            actions.append(
                .delete(DeleteItemRequest(tableName: tableName, key: UsageKeys.key(emailKey: emailKey, sort: sort))))
        }
        do {
            try await transact(actions)
        } catch let error as TableError where error.code == .transactionCanceled && !error.isTransientCancellation {
            return true  // opened by another call meanwhile, or closed
        } catch {
            throw UsageStoreError(operation: "open the month", underlying: error)
        }
        return true
    }
}
