import CoreMetrics
import InkraAuth
import InkraJSON
import InkraTime
import InkraUsage
import Logging

/// `checkUsage` (GET): the caller's usage in the month, day and hour; consumes nothing. A deleted
/// account's token gets 401 `unauthorized`, as from `generateQuestions`.
public struct CheckUsage: EventHandler {
    let store: any UsageStore
    let limits: TierLimits
    let metrics: any MetricsFactory

    /// Creates the function with its dependencies.
    /// - Parameters:
    ///   - store: where usage is read.
    ///   - limits: each tier's limits.
    ///   - metrics: where `UsageStoreFailure` is counted (the process's metrics system unless
    ///     another is given).
    public init(
        store: any UsageStore,
        limits: TierLimits = TierLimits(),
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.store = store
        self.limits = limits
        self.metrics = metrics
    }

    /// Answers the usage at the context's time.
    public func handle(_ event: JSONValue, context: InvocationContext) async throws(FunctionError) -> JSONValue {
        let request = try ProxyRequest(event: event)
        return await respond(to: request, context: context).json
    }

    /// Answers one proxy request at the context's time, from the store bound to the invocation.
    private func respond(to request: ProxyRequest, context: InvocationContext) async -> ProxyResponse {
        let store = self.store.bound(to: context)
        guard let caller = CallerIdentity(authorizer: request.authorizer) else {
            return HTTPError.unauthorized.response
        }
        let report: UsageReport
        do {
            report = try await store.usage(
                for: caller.userID, email: caller.email, at: context.time, limits: caller.limits(in: limits))
        } catch {
            context.logger.error("usage store failed", metadata: ["error": "\(error)"])
            MetricName.usageStoreFailure.increment(in: metrics)
            return HTTPError.storeUnavailable.response
        }
        guard !report.accountClosed else { return HTTPError.accountDeleted.response }
        return .json(
            200,
            [
                "used": .number(report.monthly.used),
                "limit": .number(report.monthly.limit),
                "remaining": .number(report.monthly.remaining),
                "resetDate": .string(report.resetDate),
                "tier": .string(caller.tier.rawValue),
                "daily": Self.window(report.daily),
                "hourly": Self.window(report.hourly),
            ]
        )
    }

    private static func window(_ usage: WindowUsage) -> JSONValue {
        [
            "used": .number(usage.used),
            "limit": .number(usage.limit),
            "resetAt": .string(UsageWindows.iso8601(usage.resetsAt)),
        ]
    }
}
