import CoreMetrics
import InkraJSON
import InkraTime
import InkraUsage
import Logging

/// `repairCharges` (on a schedule: template.yaml runs it every five minutes): gives back the unit
/// of every call with an `Idempotency-Key` that was charged and never answered — its runtime was
/// killed, or its give-back failed — once the call's lease has run out and no retry took it over.
/// The event is not looked at (EventBridge's scheduled event, or `{}`); the result says how many
/// calls were repaired.
public struct RepairCharges: EventHandler {
    let store: any UsageStore
    let metrics: any MetricsFactory

    /// Creates the function with its dependencies.
    /// - Parameters:
    ///   - store: where usage is counted.
    ///   - metrics: where `UsageStoreFailure` and `ChargeRepaired` are counted (the process's metrics system unless
    ///     another is given).
    public init(
        store: any UsageStore,
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.store = store
        self.metrics = metrics
    }

    /// Repairs the calls whose leases ran out before the context's time, and answers
    /// `{"repaired": N, "leftAlone": M}`.
    /// - Throws: ``FunctionError`` when the usage store fails (what was repaired stays repaired;
    ///   the next run does the rest).
    public func handle(_ event: JSONValue, context: InvocationContext) async throws(FunctionError) -> JSONValue {
        let store = self.store.bound(to: context)
        let logger = context.logger
        let report: ChargeRepair
        do {
            report = try await store.repairCharges(at: context.time)
        } catch {
            logger.error("could not repair unanswered charges", metadata: ["error": "\(error)"])
            MetricName.usageStoreFailure.increment(in: metrics)
            throw FunctionError(
                errorType: "UsageStoreFailure", errorMessage: "the usage store failed; retried on the next run")
        }
        if report.repaired > 0 {
            logger.warning("gave back the units of unanswered calls", metadata: ["repaired": "\(report.repaired)"])
            MetricName.chargeRepaired.increment(by: report.repaired, in: metrics)
        }
        return ["repaired": .number(report.repaired), "leftAlone": .number(report.leftAlone)]
    }
}
