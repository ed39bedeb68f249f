import InkraJSON
import InkraUsage
import Logging
import Metrics

/// `deleteAccount` (`DELETE /account`): erases every usage item of the caller (their month, day and
/// hour counters, idempotency records, refunds and refusal marks) and then their account in the
/// user directory (the Cognito user), as App Store Review Guideline 5.1.1(v) asks of an app that
/// lets people create an account.
///
/// Answers 204 with an empty body, also when there was nothing to erase, so a repeat answers the
/// same; no other user's items are touched. Without a caller, 401 `unauthorized`; when the usage
/// store or the directory fails, 503 `unavailable` (what was erased before the failure stays
/// erased, and a retry erases the rest). The account goes last, so the caller's token still works
/// for that retry.
public struct DeleteAccount: EventHandler {
    let store: any UsageStore
    let users: (any UserDirectory)?
    let logger: Logger
    let metrics: any MetricsFactory

    /// Creates the function with its dependencies.
    /// - Parameters:
    ///   - store: where usage is counted.
    ///   - users: the directory whose account is deleted after the usage; `nil` erases usage only.
    ///   - logger: where erasures and failures are logged.
    ///   - metrics: where `UsageStoreFailure` is counted (the process's metrics system unless
    ///     another is given).
    public init(
        store: any UsageStore, users: (any UserDirectory)? = nil,
        logger: Logger = Logger(label: "inkra.deleteAccount"),
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.store = store
        self.users = users
        self.logger = logger
        self.metrics = metrics
    }

    /// Erases the caller's usage, then their account.
    public func handle(_ event: JSONValue, context: InvocationContext) async throws(FunctionError) -> JSONValue {
        let request = try ProxyRequest(event: event)
        return await context.withDeadlines { await respond(to: request) }.json
    }

    /// Answers one proxy request.
    package func respond(to request: ProxyRequest) async -> ProxyResponse {
        guard let caller = CallerIdentity(authorizer: request.authorizer) else {
            return HTTPError.unauthorized.response
        }
        let erasure: UsageErasure
        do {
            erasure = try await store.erase(user: caller.userID)
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
