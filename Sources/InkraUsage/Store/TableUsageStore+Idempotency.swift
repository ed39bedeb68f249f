import InkraCrypto
import InkraTime
import SingleTable

/// A call's idempotency record: what makes a user's unit stay charged exactly when the call is
/// answered 200, whatever fails in between (docs/table.md, "Idempotency records").
///
/// The consume transaction writes the record beside the three counters, `INPROGRESS`, naming the
/// windows it charged (`chargedAt`), the attempt that holds it (`attempt`, a random token) and how
/// long that attempt may hold it (`leaseUntil`: the end of the request's clean-up budget). Then:
/// - the holder completes it (`COMPLETED`, the sealed answer) before its 200 goes out, or gives
///   the unit back and deletes it; both are conditional on still holding it;
/// - a retry with the same key and body after the lease ran out takes the record over (a
///   conditional write on the old attempt) and generates without charging again;
/// - an orphan — charged, never answered, not retried — is found through GSI1 (`REPAIR#<day>`,
///   sorted by lease) and given back by ``repairCharges(at:)``, which deletes the record so that a
///   later retry with the key runs as a new call.
extension TableUsageStore {
    /// Days an unanswered record is kept (its DynamoDB TTL), and so how far back a repair looks.
    static let repairHorizonDays = 7

    /// Seconds a lease lasts when the request has no deadline: API Gateway's integration timeout,
    /// rounded up, and the clean-up budget.
    static let leaseWithoutDeadline = 32

    /// A fresh attempt token.
    static func newAttempt() -> String { RandomUUID.string() }

    /// Seconds from now to the end of the request's clean-up budget, rounded up, at least one:
    /// no other request may take the record over before the holder has stopped writing.
    func leaseSeconds() -> Int {
        guard let end = scope.cleanupEnd() else { return Self.leaseWithoutDeadline }
        let left = max(.zero, ContinuousClock.now.duration(to: end))
        return max(1, Int(left.components.seconds) + (left.components.attoseconds > 0 ? 1 : 0))
    }

    /// The record's GSI1 sort key: its lease as ten digits, so a query for `<= now` finds the
    /// leases that ran out.
    static func repairSortKey(lease: Int) -> String {
        let digits = String(max(0, lease))
        return String(repeating: "0", count: max(0, 10 - digits.count)) + digits
    }

    // MARK: - Consume

    /// The record written with the charge: in progress, held by `attempt`. Its condition lets a
    /// new charge replace only a finished record whose retention ran out (DynamoDB's TTL deletes
    /// late), or an expired one written before records named their attempt; an unanswered record
    /// is never replaced, only taken over or repaired.
    func recordPut(
        _ request: ConsumeRequest, _ seal: IdempotencySeal, _ windows: UsageWindows, _ attempt: String
    ) -> PutItemRequest {
        let epoch = Int(windows.instant.timeIntervalSince1970)
        let lease = epoch + leaseSeconds()
        var item = key(user: request.userID, sort: UsageKeys.idempotency(seal.recordID))
        item[Attribute.status] = .s(IdempotencyStatus.inProgress)
        item[Attribute.digest] = .s(seal.fingerprint(of: request.requestBody))
        item[Attribute.attempt] = .s(attempt)
        item[Attribute.lease] = .n(lease)
        item[Attribute.chargedAt] = .n(epoch)
        item[Attribute.expires] = .n(epoch + Self.repairHorizonDays * 86_400)
        item[UsageKeys.indexPartitionKey] = .s(UsageKeys.repair(windows.day))
        item[UsageKeys.indexSortKey] = .s(Self.repairSortKey(lease: lease))
        return PutItemRequest(
            tableName: tableName,
            item: item,
            conditionExpression:
                "attribute_not_exists(PK) OR (expiresAt <= :now AND (#status = :completed OR attribute_not_exists(#attempt)))",
            expressionAttributes: ExpressionAttributes(
                names: ["#status": Attribute.status, "#attempt": Attribute.attempt],
                values: [":now": .n(epoch), ":completed": .s(IdempotencyStatus.completed)]
            ),
            returnValuesOnConditionCheckFailure: .allOld
        )
    }

    /// What a consume whose record already exists comes to: another body (422), a finished call's
    /// answer, a call still held (409), or — its lease run out — the record taken over and the
    /// call resumed on the unit it already charged.
    /// - Parameter attempt: the attempt this consume wrote the record as: a record that names it
    ///   is this consume's own, applied by an attempt whose answer was lost (a store that does not
    ///   keep `ClientRequestToken`s, as DynamoDB does, applies the repeat's conditions anew).
    func resolve(
        existing old: Item, _ request: ConsumeRequest, _ seal: IdempotencySeal, _ windows: UsageWindows,
        attempt ours: String?
    ) async throws -> ConsumeOutcome {
        guard old[Attribute.digest]?.stringValue == seal.fingerprint(of: request.requestBody) else {
            return .keyReused
        }
        let status = old[Attribute.status]?.stringValue
        if let ours, status == IdempotencyStatus.inProgress, old[Attribute.attempt]?.stringValue == ours,
            let chargedAt = old[Attribute.chargedAt]?.intValue
        {
            let consumption = Consumption(
                userID: request.userID, instant: Timestamp(timeIntervalSince1970: Double(chargedAt)),
                idempotencyKey: request.idempotencyKey, attempt: ours)
            return try await charged(consumption, limits: request.limits)
        }
        if status == IdempotencyStatus.completed {
            if let sealed = old[Attribute.sealed]?.stringValue, let response = seal.open(sealed) {
                return .repeated(response)
            }
            return .inProgress(retryAfter: 1)
        }
        let now = Int(windows.instant.timeIntervalSince1970)
        let lease = old[Attribute.lease]?.intValue
        guard status == IdempotencyStatus.inProgress, let lease, lease <= now,
            let chargedAt = old[Attribute.chargedAt]?.intValue,
            let holder = old[Attribute.attempt]?.stringValue
        else {
            // A record from before records had a lease is held until it expires.
            let heldUntil = lease ?? old[Attribute.expires]?.intValue ?? now
            return .inProgress(retryAfter: max(1, heldUntil - now))
        }
        let attempt = Self.newAttempt()
        let newLease = now + leaseSeconds()
        let takeOver = UpdateItemRequest(
            tableName: tableName,
            key: key(user: request.userID, sort: UsageKeys.idempotency(seal.recordID)),
            updateExpression: "SET #attempt = :attempt, #lease = :lease, GSI1SK = :repairSort",
            conditionExpression: "#status = :inProgress AND #attempt = :holder",
            expressionAttributes: ExpressionAttributes(
                names: ["#status": Attribute.status, "#attempt": Attribute.attempt, "#lease": Attribute.lease],
                values: [
                    ":attempt": .s(attempt), ":lease": .n(newLease),
                    ":repairSort": .s(Self.repairSortKey(lease: newLease)),
                    ":inProgress": .s(IdempotencyStatus.inProgress), ":holder": .s(holder),
                ]
            )
        )
        do {
            _ = try await update(takeOver)
        } catch let error as TableError where error.code == .conditionalCheckFailed {
            // Another retry took it over first (its lease is about as long as ours would have
            // been), or its holder finished.
            return .inProgress(retryAfter: leaseSeconds())
        } catch {
            throw UsageStoreError(operation: "take over an unanswered call", underlying: error)
        }
        let consumption = Consumption(
            userID: request.userID, instant: Timestamp(timeIntervalSince1970: Double(chargedAt)),
            idempotencyKey: request.idempotencyKey, attempt: attempt)
        return try await charged(consumption, limits: request.limits)
    }

    // MARK: - Complete and release

    package func complete(_ consumption: Consumption, with response: StoredResponse) async throws {
        guard let key = consumption.idempotencyKey else { return }
        let attempt = consumption.attempt
        let seal = IdempotencySeal(key: key, userID: consumption.userID, secret: secret)
        let sealed: String
        do {
            sealed = try seal.seal(response)
        } catch {
            throw UsageStoreError(operation: "complete", underlying: error)
        }
        let epoch = Int(consumption.instant.timeIntervalSince1970)
        let request = UpdateItemRequest(
            tableName: tableName,
            key: self.key(user: consumption.userID, sort: UsageKeys.idempotency(seal.recordID)),
            updateExpression:
                "SET #status = :completed, sealedResponse = :sealed, expiresAt = :expires REMOVE #lease, GSI1PK, GSI1SK",
            conditionExpression: Self.holdCondition(attempt),
            expressionAttributes: ExpressionAttributes(
                names: Self.holdNames(attempt).merging(["#lease": Attribute.lease]) { first, _ in first },
                values: Self.holdValues(attempt).merging([
                    ":completed": .s(IdempotencyStatus.completed),
                    ":sealed": .s(sealed),
                    ":expires": .n(epoch + UsageKeys.Retention.idempotency),
                ]) { first, _ in first }
            ),
            returnValuesOnConditionCheckFailure: .allOld
        )
        do {
            _ = try await cleaningUp().update(request)
        } catch let error as TableError where error.code == .conditionalCheckFailed {
            // An earlier try of this very write may have applied before its answer was lost.
            let old = try? await read(
                partition: partition(of: consumption.userID), sort: UsageKeys.idempotency(seal.recordID))
            if let old = error.item ?? old, old[Attribute.status]?.stringValue == IdempotencyStatus.completed,
                old[Attribute.attempt]?.stringValue == attempt
            {
                return
            }
            throw UsageStoreError(.takenOver, operation: "complete", "another request took this call over")
        } catch {
            throw UsageStoreError(operation: "complete", underlying: error)
        }
    }

    package func release(_ consumption: Consumption) async throws {
        let windows = UsageWindows(at: consumption.instant)
        var hold: Hold?
        if let key = consumption.idempotencyKey {
            let seal = IdempotencySeal(key: key, userID: consumption.userID, secret: secret)
            hold = Hold(sortKey: UsageKeys.idempotency(seal.recordID), attempt: consumption.attempt, leaseEndedBy: nil)
        }
        do {
            _ = try await cleaningUp().giveBack(partition: partition(of: consumption.userID), windows, hold: hold)
        } catch {
            throw UsageStoreError(operation: "release", underlying: error)
        }
    }

    // MARK: - Repair

    package func repairCharges(at instant: Timestamp) async throws -> ChargeRepair {
        let now = Int(instant.timeIntervalSince1970)
        var report = ChargeRepair(repaired: 0, leftAlone: 0)
        for daysBack in 0...Self.repairHorizonDays {
            let day = UsageWindows(at: instant.addingTimeInterval(-Double(daysBack) * 86_400)).day
            let request = QueryRequest(
                tableName: tableName,
                indexName: UsageKeys.index,
                keyConditionExpression: "GSI1PK = :day AND GSI1SK <= :now",
                expressionAttributes: ExpressionAttributes(values: [
                    ":day": .s(UsageKeys.repair(day)), ":now": .s(Self.repairSortKey(lease: now)),
                ])
            )
            try await queryAll(request, operation: "list unanswered calls") { found in
                if try await repair(found, now: now) { report.repaired += 1 } else { report.leftAlone += 1 }
            }
        }
        return report
    }

    /// Gives back one record's unit if, read consistently, it is still unanswered under the same
    /// attempt and its lease has run out.
    private func repair(_ found: Item, now: Int) async throws -> Bool {
        guard let partition = found[UsageKeys.partitionKey]?.stringValue, partition.hasPrefix(UsageKeys.userPrefix),
            let sortKey = found[UsageKeys.sortKey]?.stringValue
        else { return false }
        guard let record = try await read(partition: partition, sort: sortKey),
            record[Attribute.status]?.stringValue == IdempotencyStatus.inProgress,
            let attempt = record[Attribute.attempt]?.stringValue,
            let lease = record[Attribute.lease]?.intValue, lease <= now,
            let chargedAt = record[Attribute.chargedAt]?.intValue
        else { return false }
        let windows = UsageWindows(at: Timestamp(timeIntervalSince1970: Double(chargedAt)))
        do {
            return try await giveBack(
                partition: partition, windows, hold: Hold(sortKey: sortKey, attempt: attempt, leaseEndedBy: now))
        } catch {
            throw UsageStoreError(operation: "repair an unanswered call", underlying: error)
        }
    }

    // MARK: - Giving a unit back

    /// A record a give-back deletes, on condition that it is still unanswered under `attempt`
    /// (and, for a repair, that its lease ended by `leaseEndedBy`).
    struct Hold {
        let sortKey: String
        /// `nil` for a consumption made without one (held by whichever attempt is running).
        let attempt: String?
        let leaseEndedBy: Int?
    }

    /// "Still unanswered, and held by `attempt`" (any attempt when `nil`).
    static func holdCondition(_ attempt: String?) -> String {
        attempt == nil ? "#status = :inProgress" : "#status = :inProgress AND #attempt = :attempt"
    }

    static func holdNames(_ attempt: String?) -> [String: String] {
        var names = ["#status": Attribute.status]
        if attempt != nil { names["#attempt"] = Attribute.attempt }
        return names
    }

    static func holdValues(_ attempt: String?) -> [String: AttributeValue] {
        var values: [String: AttributeValue] = [":inProgress": .s(IdempotencyStatus.inProgress)]
        if let attempt { values[":attempt"] = .s(attempt) }
        return values
    }

    /// Takes one unit off the month, day and hour counters of `windows` (never below zero) and,
    /// with a hold, deletes its record, in one transaction.
    /// - Returns: `false` when the record is no longer held as `hold` says (another request took
    ///   it over or answered): nothing was given back, the unit being that request's.
    private func giveBack(partition: String, _ windows: UsageWindows, hold: Hold?) async throws -> Bool {
        var counters = UsageWindow.allCases.map { Slot($0, windows) }
        while true {
            var actions: [TransactWriteItem] = counters.map { slot in
                .update(
                    UpdateItemRequest(
                        tableName: tableName,
                        key: UsageKeys.key(partition: partition, sort: slot.sortKey),
                        updateExpression: "ADD \(slot.counter) :minusOne",
                        conditionExpression: "\(slot.counter) > :zero",
                        expressionAttributes: ExpressionAttributes(values: [":minusOne": .n(-1), ":zero": .n(0)])
                    )
                )
            }
            if let hold { actions.append(.delete(recordDelete(partition: partition, hold))) }
            guard !actions.isEmpty else { return true }
            do {
                try await transact(actions)
                return true
            } catch let error as TableError where error.code == .transactionCanceled {
                let reasons = error.cancellationReasons
                func failed(_ index: Int) -> Bool {
                    index < reasons.count && reasons[index].isConditionFailure
                }
                if hold != nil, failed(counters.count) { return false }
                let atZero = counters.indices.filter(failed)
                guard !atZero.isEmpty else { throw error }
                // A counter already at zero (support reset it, or TTL took its item) has nothing
                // to give back: give back the rest, and still let the record go.
                for index in atZero.reversed() { counters.remove(at: index) }
            }
        }
    }

    private func recordDelete(partition: String, _ hold: Hold) -> DeleteItemRequest {
        var condition = Self.holdCondition(hold.attempt)
        var values = Self.holdValues(hold.attempt)
        var names = Self.holdNames(hold.attempt)
        if let now = hold.leaseEndedBy {
            condition += " AND #lease <= :now"
            values[":now"] = .n(now)
            names["#lease"] = Attribute.lease
        }
        return DeleteItemRequest(
            tableName: tableName,
            key: UsageKeys.key(partition: partition, sort: hold.sortKey),
            conditionExpression: condition,
            expressionAttributes: ExpressionAttributes(names: names, values: values)
        )
    }
}

/// The attributes of an idempotency record.
enum Attribute {
    static let status = "status"
    static let digest = "requestDigest"
    static let attempt = "attempt"
    static let lease = "leaseUntil"
    static let chargedAt = "chargedAt"
    static let sealed = "sealedResponse"
    static let expires = "expiresAt"
}

/// The `status` of an idempotency record.
enum IdempotencyStatus {
    static let inProgress = "INPROGRESS"
    static let completed = "COMPLETED"
}
