import Foundation
import InkraUsage

/// What another way of counting the windows (`--algorithm`) would change in a bill, estimated.
///
/// The functions count calendar windows, so the other algorithm's decisions are simulated
/// (``WindowAlgorithm/redecide(_:limits:)``), not run: a call it decides otherwise than the
/// replay is priced as the mean of the replay's calls of its tier that were answered as the
/// algorithm would answer it (a refused call's mark, no model; an admitted call's charge), in
/// place of its own. A call no replayed call of its tier and outcome can price is counted in
/// ``unpriced`` and left as it was.
package struct AlgorithmEstimate: Sendable, Hashable {
    /// The algorithm.
    package var algorithm: WindowAlgorithm
    /// Calls the replay admitted and the algorithm refuses.
    package var admittedToRefused = 0
    /// Calls the replay refused and the algorithm admits.
    package var refusedToAdmitted = 0
    /// Calls decided otherwise that no replayed call could price.
    package var unpriced = 0
    /// What the bill changes by, in dollars (negative: cheaper).
    package var change = Decimal(0)

    /// Estimates the change.
    /// - Parameters:
    ///   - usage: the replay's usage, with its `generateQuestions` calls.
    ///   - limits: the limits the replay ran under.
    ///   - algorithm: the other way of counting.
    ///   - prices: the prices.
    ///   - sizing: how durations are billed.
    package init(
        _ usage: TrafficUsage, limits: TierLimits, algorithm: WindowAlgorithm, prices: Prices, sizing: Bill.Sizing
    ) {
        self.algorithm = algorithm
        let bills = usage.calls.map { Bill($0.usage, prices: prices, sizing: sizing).total }
        // Per tier and decision (admitted or not), the replayed calls' bills, to price a call
        // decided the other way by their mean.
        var sums: [Decided: (total: Decimal, count: Int)] = [:]
        for ((call, _), bill) in zip(usage.calls, bills) where call.replayed.isDecision {
            let key = Decided(tier: call.tier, admitted: call.replayed == .admitted)
            let sum = sums[key] ?? (0, 0)
            sums[key] = (sum.total + bill, sum.count + 1)
        }
        let decided = algorithm.redecide(usage.calls.map(\.call), limits: limits)
        for ((call, bill), now) in zip(zip(usage.calls.map(\.call), bills), decided) {
            guard call.replayed.isDecision, now.replayed.isDecision,
                (call.replayed == .admitted) != (now.replayed == .admitted)
            else { continue }
            let admits = now.replayed == .admitted
            if admits { refusedToAdmitted += 1 } else { admittedToRefused += 1 }
            guard let sum = sums[Decided(tier: call.tier, admitted: admits)], sum.count > 0 else {
                unpriced += 1
                continue
            }
            change += sum.total / Decimal(sum.count) - bill
        }
    }

    /// A tier's calls with one decision.
    private struct Decided: Hashable {
        var tier: String
        var admitted: Bool
    }

    /// The change in calls answered 200 (each a call to the model).
    package var answeredCallsChange: Int { refusedToAdmitted - admittedToRefused }
}
