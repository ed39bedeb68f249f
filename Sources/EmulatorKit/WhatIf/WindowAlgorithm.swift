import Foundation
import InkraTime
import InkraUsage

/// How usage windows could count a user's calls: today's calendar windows, or one of the two
/// rolling alternatives `replay report --algorithm` simulates over recorded traffic.
///
/// Every algorithm has the same three limits per tier (hourly, daily, monthly, from the limits
/// file); a call is admitted when every window allows it, and only an admitted call counts against
/// the windows (a refused call takes nothing, as the usage store's transaction does). When several
/// windows refuse, the refusal names the first of month, day, hour.
package enum WindowAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// UTC calendar windows (clock hour, day, month), as the functions count today.
    case calendar
    /// Rolling windows: the admitted calls in the hour, the 24 hours and the 30 days before each
    /// call (the instant of the call excluded from none: `(t - length, t]`).
    case slidingWindow = "sliding-window"
    /// A token bucket per window: `limit` tokens, full at a user's first call, refilled
    /// continuously at `limit / length` tokens a second up to `limit`; a call takes one token from
    /// every bucket, and is admitted when each holds at least one.
    case tokenBucket = "token-bucket"

    /// The length, in seconds, of a rolling window: an hour, 24 hours, 30 days.
    package static func length(of window: UsageWindow) -> TimeInterval {
        switch window {
        case .hour: 3600
        case .day: 86_400
        case .month: 30 * 86_400
        }
    }

    /// The windows in the order a refusal names them.
    static let order: [UsageWindow] = [.month, .day, .hour]

    /// Decides a user's calls in time order: what this algorithm answers each call at its instant.
    /// - Parameters:
    ///   - instants: the calls' instants, in the order they were made.
    ///   - limits: the user's limits.
    /// - Returns: one admission per call, `.admitted` or `.refused(window)`.
    package func decide(_ instants: [Timestamp], limits: Limits) -> [Admission] {
        switch self {
        case .calendar: return Self.calendarDecisions(instants, limits)
        case .slidingWindow: return Self.slidingDecisions(instants, limits)
        case .tokenBucket: return Self.bucketDecisions(instants, limits)
        }
    }

    private static func calendarDecisions(_ instants: [Timestamp], _ limits: Limits) -> [Admission] {
        var used: [String: Int] = [:]
        return instants.map { instant in
            let windows = UsageWindows(at: instant)
            let keys: [UsageWindow: String] = [.month: windows.month, .day: windows.day, .hour: windows.hour]
            for window in order where used[keys[window] ?? "", default: 0] >= limits.limit(for: window) {
                return .refused(window)
            }
            for key in keys.values { used[key, default: 0] += 1 }
            return .admitted
        }
    }

    private static func slidingDecisions(_ instants: [Timestamp], _ limits: Limits) -> [Admission] {
        var admitted: [Timestamp] = []
        return instants.map { instant in
            for window in order {
                let since = instant.addingTimeInterval(-length(of: window))
                if admitted.count(where: { $0 > since }) >= limits.limit(for: window) { return .refused(window) }
            }
            admitted.append(instant)
            return .admitted
        }
    }

    private static func bucketDecisions(_ instants: [Timestamp], _ limits: Limits) -> [Admission] {
        var tokens: [UsageWindow: Double] = [:]
        for window in order { tokens[window] = Double(limits.limit(for: window)) }
        var last = instants.first
        return instants.map { instant in
            let elapsed = max(0, instant.timeIntervalSince(last ?? instant))
            last = instant
            for window in order {
                let capacity = Double(limits.limit(for: window))
                let refill = capacity / length(of: window) * elapsed
                tokens[window] = min(capacity, (tokens[window] ?? capacity) + refill)
            }
            // A small tolerance, so that a bucket refilled to exactly one token in floating point counts one.
            for window in order where (tokens[window] ?? 0) < 1 - 1e-9 { return .refused(window) }
            for window in order { tokens[window, default: 0] -= 1 }
            return .admitted
        }
    }
}

extension WindowAlgorithm {
    /// The metered calls with their replayed admission replaced by this algorithm's decision.
    ///
    /// Only calls the limits decided in the replay (admitted or refused there) are decided again:
    /// a call answered 400, 401 or failed never reached the windows and keeps its answer, and a
    /// call without a user or a recorded instant cannot be placed and keeps the replay's. Calls
    /// are taken per user in recorded-time order (replay order among equal instants), under the
    /// user's tier's limits, with their own monthly quota when their context names one.
    /// `.calendar` returns the calls as the replay answered them: the functions' own windows.
    /// - Parameters:
    ///   - calls: the metered calls, in replay order.
    ///   - limits: the limits to decide under.
    package func redecide(_ calls: [MeteredCall], limits: TierLimits) -> [MeteredCall] {
        guard self != .calendar else { return calls }
        var byUser: [String: [(index: Int, at: Timestamp)]] = [:]
        for (index, call) in calls.enumerated() where call.replayed.isDecision {
            guard let user = call.userID, let at = call.recordedAt else { continue }
            byUser[user, default: []].append((index, at))
        }
        var result = calls
        for entries in byUser.values {
            let ordered = entries.sorted { $0.at == $1.at ? $0.index < $1.index : $0.at < $1.at }
            let first = calls[ordered[0].index]
            var userLimits = limits.limits(forTier: first.tier)
            if let quota = first.monthlyQuota { userLimits = userLimits.withMonthly(quota) }
            let decisions = decide(ordered.map(\.at), limits: userLimits)
            for (entry, decision) in zip(ordered, decisions) { result[entry.index].replayed = decision }
        }
        return result
    }
}
