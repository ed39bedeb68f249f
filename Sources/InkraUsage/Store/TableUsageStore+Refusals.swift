import InkraTime
import SingleTable

/// A user's standing refusal: what makes a refusal after the first cost one read and no write.
///
/// A refused consume writes the user's `REFUSED` item (docs/table.md): the window that refused,
/// the units used in it, when it starts again and the day its GSI1 mark was written. Every consume
/// first reads that item (eventually consistent: half a read unit), with the call's idempotency
/// record when it carries a key (one read unit for both), and answers the refusal again without
/// any transaction while it stands: the window has not started again, the caller's limits are the
/// ones it was decided under (after a change another window may be the full one, or none), the
/// day's GSI1 mark is already written, and the key (if any)
/// names no earlier call, whose answer a retry must get. Anything else, or a stale read, goes on to
/// the consume transaction, which decides as before. A refund or a reset deletes the item.
extension TableUsageStore {
    /// The standing refusal's attributes.
    enum RefusalAttribute {
        static let until = "blockedUntil"
        static let window = "refusedWindow"
        static let used = "refusedUsed"
        static let markedDay = "markedDay"
        static let limits = "refusedLimits"
    }

    /// The limits a refusal was decided under, as the item keeps them: `monthly/daily/hourly`.
    static func limitsText(_ limits: Limits) -> String { "\(limits.monthly)/\(limits.daily)/\(limits.hourly)" }

    /// How long the read of a standing refusal may take, retries included: it saves a refused
    /// call's transaction, and must not cost a slow table's admitted call more than this.
    static let standingRefusalBudget: Duration = .milliseconds(250)

    /// The refusal a consume gets again without a write, or `nil` when the transaction must decide.
    func standingRefusal(_ request: ConsumeRequest, _ windows: UsageWindows) async -> Refusal? {
        var keys = [key(user: request.userID, sort: UsageKeys.refused)]
        if let key = request.idempotencyKey {
            let seal = IdempotencySeal(key: key, userID: request.userID, secret: secret)
            keys.append(self.key(user: request.userID, sort: UsageKeys.idempotency(seal.recordID)))
        }
        // A read that fails, or takes longer than ``standingRefusalBudget``, decides nothing: the
        // transaction will.
        guard let items = try? await bound(to: scope.within(Self.standingRefusalBudget)).peek(keys) else { return nil }
        // An earlier call with this key: its answer, or its resumption, is the transaction's to give.
        guard items.count == 1, let item = items.first, item[UsageKeys.sortKey] == .s(UsageKeys.refused),
            let until = item[RefusalAttribute.until]?.intValue,
            let window = item[RefusalAttribute.window]?.stringValue.flatMap(UsageWindow.init(rawValue:)),
            let used = item[RefusalAttribute.used]?.intValue,
            item[RefusalAttribute.markedDay]?.stringValue == windows.day,
            Int(windows.instant.timeIntervalSince1970) < until,
            item[RefusalAttribute.limits]?.stringValue == Self.limitsText(request.limits)
        else { return nil }
        return Refusal(
            window: window,
            limit: request.limits.limit(for: window),
            used: used,
            resetsAt: windows.resetsAt(window),
            retryAfter: windows.secondsUntilReset(window),
            resetDate: windows.resetDate
        )
    }

    /// The write of a standing refusal (a `SET` of every attribute, so sending it twice is harmless).
    func standingRefusalUpdate(_ consume: ConsumeRequest, _ refusal: Refusal, _ windows: UsageWindows)
        -> UpdateItemRequest
    {
        let until = Int(refusal.resetsAt.timeIntervalSince1970)
        return UpdateItemRequest(
            tableName: tableName,
            key: key(user: consume.userID, sort: UsageKeys.refused),
            updateExpression:
                "SET #until = :until, #window = :window, #used = :used, #day = :day, #limits = :limits, "
                + "expiresAt = :until",
            expressionAttributes: ExpressionAttributes(
                names: [
                    "#until": RefusalAttribute.until, "#window": RefusalAttribute.window,
                    "#used": RefusalAttribute.used, "#day": RefusalAttribute.markedDay,
                    "#limits": RefusalAttribute.limits,
                ],
                values: [
                    ":until": .n(until), ":window": .s(refusal.window.rawValue), ":used": .n(refusal.used),
                    ":day": .s(windows.day), ":limits": .s(Self.limitsText(consume.limits)),
                ]
            )
        )
    }

    /// Deletes the user's standing refusal, after support gave units back: the next call goes to
    /// the transaction.
    func liftStandingRefusal(of userID: String, operation: String) async throws {
        do {
            _ = try await retry.write(before: scope.deadline) {
                try await table.deleteItem(
                    DeleteItemRequest(tableName: tableName, key: key(user: userID, sort: UsageKeys.refused)))
            }
        } catch {
            throw UsageStoreError(operation: operation, underlying: error)
        }
    }

    /// Items by key, eventually consistent: a `GetItem` for one key, a `BatchGetItem` for more,
    /// whose unprocessed keys count as absent (the transaction decides then).
    private func peek(_ keys: [Item]) async throws -> [Item] {
        if keys.count == 1 {
            return try await table.getItem(GetItemRequest(tableName: tableName, key: keys[0])).item.map { [$0] } ?? []
        }
        let response = try await table.batchGetItem(
            BatchGetItemRequest(requestItems: [tableName: KeysAndAttributes(keys: keys, consistentRead: false)]))
        // Not every item was read (the table throttled): the record may exist; the transaction decides.
        guard response.unprocessedKeys.isEmpty else {
            throw TableError(.throttling, "BatchGetItem left keys unprocessed")
        }
        return response.responses[tableName] ?? []
    }
}
