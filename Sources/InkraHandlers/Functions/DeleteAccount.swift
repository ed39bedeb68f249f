import CoreMetrics
import InkraJSON
import InkraTime
import InkraUsage
import Logging

/// `deleteAccount` (`DELETE /account`): erases every usage item of the caller (their month, day and
/// hour counters, idempotency records, refunds and refusal marks) and then their account in the
/// user directory (the Cognito user), as App Store Review Guideline 5.1.1(v) asks of an app that
/// lets people create an account.
///
/// Deleting does not reset the meter (`UsageStore.closeAccount(of:email:at:)`): a tombstone
/// makes every function refuse the account's tokens (401) for as long as one may be valid, and
/// the units used in the month, day and hour of the deletion stay, under a keyed hash of the
/// verified email, until each window ends, so signing up again with the same address gets no
/// fresh month (docs/functions.md says what is kept and for how long).
///
/// Answers 204 with an empty body, also when there was nothing to erase, so a repeat answers the
/// same; no other user's items are touched. Without a caller, 401 `unauthorized`; when the usage
/// store or the directory fails, 503 `unavailable` (what was erased before the failure stays
/// erased, and a retry erases the rest). The account goes last, so the caller's token still works
/// for that retry.
public struct DeleteAccount: EventHandler {
    let store: any UsageStore
    let users: (any UserDirectory)?
    let metrics: any MetricsFactory

    /// Creates the function with its dependencies.
    /// - Parameters:
    ///   - store: where usage is counted.
    ///   - users: the directory whose account is deleted after the usage; `nil` erases usage only.
    ///   - metrics: where `UsageStoreFailure` is counted (the process's metrics system unless
    ///     another is given).
    public init(
        store: any UsageStore, users: (any UserDirectory)? = nil,
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.store = store
        self.users = users
        self.metrics = metrics
    }

    /// Erases the caller's usage, then their account.
    public func handle(_ event: JSONValue, context: InvocationContext) async throws(FunctionError) -> JSONValue {
        let request = try ProxyRequest(event: event)
        return await respond(to: request, context: context).json
    }

    /// Answers one proxy request at the context's time, with the store and the directory bound to
    /// the invocation.
    private func respond(to request: ProxyRequest, context: InvocationContext) async -> ProxyResponse {
        let store = self.store.bound(to: context)
        let users = self.users.map { context.scope.bind($0) }
        let logger = context.logger
        guard let caller = CallerIdentity(authorizer: request.authorizer) else {
            return HTTPError.unauthorized.response
        }
        let erasure: UsageErasure
        do {
            erasure = try await store.closeAccount(of: caller.userID, email: caller.email, at: context.time)
        } catch {
            logger.error("usage store failed; the account's usage is not erased", metadata: ["error": "\(error)"])
            MetricName.usageStoreFailure.increment(in: metrics)
            return HTTPError.storeUnavailable.response
        }
        logger.info(
            "account usage erased",
            metadata: ["user": "\(caller.userID)", "items": "\(erasure.removed)"]
        )
        guard let users else { return ProxyResponse(statusCode: 204, body: "") }
        do {
            let deleted = try await users.deleteUser(caller.userID)
            logger.info(
                deleted
                    ? "account deleted from the user directory" : "account was already gone from the user directory",
                metadata: ["user": "\(caller.userID)"])
        } catch {
            logger.error(
                "user directory failed; the account is not deleted (its usage is erased)",
                metadata: ["user": "\(caller.userID)", "error": "\(error)"])
            return HTTPError.directoryUnavailable.response
        }
        return ProxyResponse(statusCode: 204, body: "")
    }
}
