import InkraTime

/// Counts each user's costly calls in monthly, daily and hourly windows, all at once or not at all.
///
/// Implementations must be atomic under concurrency: two calls can never both take the last unit.
public protocol UsageStore: Sendable {
    /// Consumes one unit in the month, day and hour windows of `request.instant`, or none when any
    /// window is full; with an idempotency key, a repeat is recognised instead.
    func consume(_ request: ConsumeRequest) async throws -> ConsumeOutcome
    /// Gives back a unit that was consumed (the call it paid for failed), and forgets its
    /// idempotency record so the caller may retry; a record another request has taken over since
    /// is left to that request, with its unit. Runs under the request's clean-up budget
    /// (a store bound to a request runs it to the clean-up deadline), so it is sent even after the
    /// work's deadline.
    func release(_ consumption: Consumption) async throws
    /// Records the response of a call made with an idempotency key, for repeats to return; a
    /// store keeps it only in a form that reveals nothing without the key. Runs under the
    /// request's clean-up budget.
    /// - Throws: when the record could not be written, or is no longer this call's (another
    ///   request took it over): the answer must then not go out, and the unit stays charged for
    ///   the call's retries.
    func complete(_ consumption: Consumption, with response: StoredResponse) async throws
    /// Gives back every unit charged for a call with an idempotency key that was never answered
    /// and whose lease has run out (a crash, a timeout whose give-back failed), and marks its
    /// record so that a later retry with that key runs as a new call.
    /// - Parameter instant: now; leases that ran out before it are repaired.
    func repairCharges(at instant: Timestamp) async throws -> ChargeRepair
    /// A user's usage in the windows of an instant; reads only.
    /// - Parameters:
    ///   - userID: the user.
    ///   - email: the user's verified email, when known: a month the user has not called in yet
    ///     then counts what a deleted account of the same address used in it.
    ///   - instant: the instant whose windows are read.
    ///   - limits: the user's limits.
    func usage(for userID: String, email: String?, at instant: Timestamp, limits: Limits) async throws -> UsageReport
    /// The users refused at least once on a UTC day (`YYYY-MM-DD`), in user order.
    func refusedUsers(on day: String) async throws -> [String]
    /// The users refused at least once on a UTC day (`YYYY-MM-DD`), in user order, each with the
    /// tier and the window of the day's last refusal.
    func refusals(on day: String) async throws -> [RefusedUser]
    /// Gives back up to `units` in each of the month, day and hour windows of `instant`, never
    /// below zero (what support does after an incident), once per `reference`: a refund whose
    /// reference the user already has changes nothing.
    /// - Parameters:
    ///   - units: at least 1.
    ///   - userID: the user.
    ///   - instant: the instant whose windows get the units back.
    ///   - reference: names the refund (an incident or a ticket); `nil` names it after the hour
    ///     of `instant` and `units` (`UsageRefund.defaultReference(units:at:)`).
    func refund(_ units: Int, to userID: String, at instant: Timestamp, reference: String?) async throws -> UsageRefund
    /// Sets one window of `instant` back to zero; a window already at zero is left alone.
    func reset(_ window: UsageWindow, of userID: String, at instant: Timestamp) async throws -> WindowChange
    /// Deletes every item of a user (usage, rate limits, idempotency records, refunds, and so the
    /// user's refusal marks in GSI1); erasing a user with no items removes nothing.
    func erase(user userID: String) async throws -> UsageErasure
    /// Deletes an account's usage for good, without resetting its meter: every item as
    /// ``erase(user:)`` does, but a tombstone that refuses the account's calls while its tokens
    /// may still be used, and the units it used in the windows of `instant`, kept under a keyed
    /// hash of `email` until each window ends, for an account signed up again with that address.
    /// Closing an account again changes nothing more.
    func closeAccount(of userID: String, email: String?, at instant: Timestamp) async throws -> UsageErasure
}

extension UsageStore {
    /// A user's usage in the windows of an instant, without an email.
    package func usage(for userID: String, at instant: Timestamp, limits: Limits) async throws -> UsageReport {
        try await usage(for: userID, email: nil, at: instant, limits: limits)
    }
}

/// A request to consume one unit.
public struct ConsumeRequest: Sendable, Hashable {
    /// The user (the token's `sub`).
    package var userID: String
    /// When the call happened; decides the windows.
    package var instant: Timestamp
    /// The user's limits.
    package var limits: Limits
    /// The caller's `Idempotency-Key`, when it sent one.
    package var idempotencyKey: String?
    /// The request's body, with an idempotency key: kept only as a digest keyed by the
    /// idempotency key, to tell a reused key with another body from a repeat.
    package var requestBody: [UInt8]
    /// The caller's tier (`free`, `premium`), recorded with a refusal for ``UsageStore/refusals(on:)``.
    package var tier: String?
    /// The caller's verified email, when the token carries one: the first call of a month counts
    /// what a deleted account of the same address used in it (kept only as a keyed hash).
    package var email: String?

    /// Creates a request.
    package init(
        userID: String, instant: Timestamp, limits: Limits, idempotencyKey: String? = nil, requestBody: [UInt8] = [],
        tier: String? = nil, email: String? = nil
    ) {
        self.userID = userID
        self.instant = instant
        self.limits = limits
        self.idempotencyKey = idempotencyKey
        self.requestBody = requestBody
        self.tier = tier
        self.email = email
    }
}

/// A unit that was consumed: enough to give it back or to complete its idempotency record.
public struct Consumption: Sendable, Hashable {
    /// The user.
    package var userID: String
    /// The instant whose windows were charged.
    package var instant: Timestamp
    /// The idempotency key the call carried.
    package var idempotencyKey: String?
    /// With an idempotency key: the attempt that holds the key's record (a random token), so that
    /// only this attempt completes or releases it.
    package var attempt: String?

    /// Creates a consumption record.
    package init(userID: String, instant: Timestamp, idempotencyKey: String? = nil, attempt: String? = nil) {
        self.userID = userID
        self.instant = instant
        self.idempotencyKey = idempotencyKey
        self.attempt = attempt
    }
}

/// What a repair of unanswered charges did (``UsageStore/repairCharges(at:)``).
public struct ChargeRepair: Sendable, Hashable {
    /// Records whose unit was given back.
    package var repaired: Int
    /// Records found unanswered whose lease has not yet run out, or that another request took
    /// over meanwhile: left alone.
    package var leftAlone: Int

    /// Creates a report.
    package init(repaired: Int, leftAlone: Int) {
        self.repaired = repaired
        self.leftAlone = leftAlone
    }
}

/// What came of a consume.
public enum ConsumeOutcome: Sendable, Hashable {
    /// One unit was consumed; `monthly` is the month's usage after it.
    case consumed(Consumption, monthly: WindowUsage)
    /// A window was full: nothing was consumed.
    case refused(Refusal)
    /// The idempotency key was used before and that call finished: here is its response.
    case repeated(StoredResponse)
    /// The idempotency key belongs to a call that is still running; its holder's lease runs out
    /// in `retryAfter` seconds (at least 1), when a retry can take the call over.
    case inProgress(retryAfter: Int)
    /// The idempotency key was used before with a different request body: nothing was consumed.
    case keyReused
    /// The account was deleted (``UsageStore/closeAccount(of:email:at:)``): nothing was consumed.
    case closed
}

/// Why a consume was refused: the first full window, month before day before hour.
public struct Refusal: Sendable, Hashable {
    /// The full window.
    package var window: UsageWindow
    /// Its limit.
    package var limit: Int
    /// Units used in it.
    package var used: Int
    /// When it resets.
    package var resetsAt: Timestamp
    /// Whole seconds until then, at least 1.
    package var retryAfter: Int
    /// The first day of the next month, `YYYY-MM-01`.
    package var resetDate: String
    /// Whether the refusal was recorded for ``UsageStore/refusals(on:)``; `false` when the mark
    /// could not be written (the refusal stands all the same).
    package var recorded: Bool

    /// Creates a refusal.
    package init(
        window: UsageWindow, limit: Int, used: Int, resetsAt: Timestamp, retryAfter: Int, resetDate: String,
        recorded: Bool = true
    ) {
        self.window = window
        self.limit = limit
        self.used = used
        self.resetsAt = resetsAt
        self.retryAfter = retryAfter
        self.resetDate = resetDate
        self.recorded = recorded
    }
}

/// Usage in one window.
public struct WindowUsage: Sendable, Hashable {
    /// Units used.
    package var used: Int
    /// The window's limit.
    package var limit: Int
    /// When the window resets.
    package var resetsAt: Timestamp

    /// Units left, never below zero.
    package var remaining: Int { max(0, limit - used) }

    /// Creates a reading.
    package init(used: Int, limit: Int, resetsAt: Timestamp) {
        self.used = used
        self.limit = limit
        self.resetsAt = resetsAt
    }
}

/// A user's usage in the three windows of an instant.
public struct UsageReport: Sendable, Hashable {
    /// The month.
    package var monthly: WindowUsage
    /// The day.
    package var daily: WindowUsage
    /// The hour.
    package var hourly: WindowUsage
    /// The first day of the next month, `YYYY-MM-01`.
    package var resetDate: String
    /// Whether the account was deleted (``UsageStore/closeAccount(of:email:at:)``).
    package var accountClosed: Bool

    /// Creates a report.
    package init(
        monthly: WindowUsage, daily: WindowUsage, hourly: WindowUsage, resetDate: String, accountClosed: Bool = false
    ) {
        self.monthly = monthly
        self.daily = daily
        self.hourly = hourly
        self.resetDate = resetDate
        self.accountClosed = accountClosed
    }
}

/// A finished call's response, kept for repeats with the same idempotency key.
public struct StoredResponse: Sendable, Hashable {
    /// The HTTP status code.
    package var statusCode: Int
    /// The response body.
    package var body: String

    /// Creates a stored response.
    package init(statusCode: Int, body: String) {
        self.statusCode = statusCode
        self.body = body
    }
}
