import InkraUsage

/// What other limits would change in recorded traffic: for each tier, the metered calls that the
/// recording admitted and the replay refused (by window), those it refused and the replay admitted,
/// and those refused by another window, each with the number of calls, of users, and the first
/// few examples (request and user ids, never a request's content).
package struct WhatIfReport: Sendable, Hashable {
    /// Calls that moved from one outcome to another, and who made them.
    package struct Change: Sendable, Hashable {
        /// How many calls.
        package var calls = 0
        /// How many distinct users made them.
        package var users = 0
        /// The first few, in replay order.
        package var examples: [MeteredCall] = []
    }

    /// One tier's changes.
    package struct TierChanges: Sendable, Hashable {
        /// The tier (`free`, `premium`, or `unknown` when no identity reached the function).
        package var tier: String
        /// Admitted when recorded, refused now: by the window that refuses them now.
        package var admittedToRefused: [UsageWindow: Change] = [:]
        /// Admitted when recorded, refused now, whatever the window.
        package var admittedToRefusedTotal = Change()
        /// Refused when recorded, admitted now.
        package var refusedToAdmitted = Change()
        /// Refused both times, but by another window now.
        package var refusedByAnotherWindow = Change()
        /// Calls whose outcome changed in a way limits do not explain (admitted when recorded, a
        /// 400 or a failure now): another difference between the recording and this replay.
        package var otherChanges = Change()
        /// Admitted both times.
        package var stillAdmitted = 0
        /// Refused both times, by the same window.
        package var stillRefused = 0
        /// Distinct users with at least one call admitted or refused differently.
        package var usersAffected = 0

        /// Whether the new limits change anything for this tier.
        package var changes: Bool {
            admittedToRefusedTotal.calls + refusedToAdmitted.calls + refusedByAnotherWindow.calls
                + otherChanges.calls > 0
        }
    }

    /// A file that could not be replayed, and why.
    package struct Problem: Sendable, Hashable {
        /// The file, as named in output.
        package var file: String
        /// What was wrong.
        package var problem: String
    }

    /// The limits file the replay ran under (`nil`: the default limits).
    package var limitsFile: String?
    /// The limits the replay ran under.
    package var limits: TierLimits
    /// How the windows counted the calls (`.calendar`: as the functions answered in the replay).
    package var algorithm = WindowAlgorithm.calendar
    /// Every event replayed.
    package var events = 0
    /// Metered calls compared with their recording.
    package var compared = 0
    /// Events that are not metered calls (authorizer, checkUsage, deleteAccount), replayed for the
    /// state they leave but not compared.
    package var notMetered = 0
    /// Metered calls with no recorded status to compare with.
    package var withoutRecording = 0
    /// Metered calls the limits decided neither time (a 400, a 401, a failure, recorded and now).
    package var answeredOtherwise = 0
    /// Calls answered otherwise than recorded for a reason the limits do not explain (a token
    /// refused, a failure, a 400 — either answer not an admission decision), by what they were and
    /// became (`admitted → 401`).
    package var changedOtherwise: [String: Int] = [:]
    /// Files that could not be replayed.
    package var problems: [Problem] = []
    /// The tiers, by name.
    package var tiers: [TierChanges] = []
    /// How many examples each change keeps.
    package var exampleLimit: Int

    /// Builds a report from the metered calls of a replay.
    /// - Parameters:
    ///   - calls: the metered calls, in replay order.
    ///   - limits: the limits the replay ran under, and the file they came from.
    ///   - exampleLimit: how many examples each change keeps.
    package init(calls: [MeteredCall], limits: TierLimits, limitsFile: String? = nil, exampleLimit: Int = 3) {
        self.limits = limits
        self.limitsFile = limitsFile
        self.exampleLimit = exampleLimit
        var builders: [String: TierBuilder] = [:]
        for call in calls where call.recorded.isDecision || call.replayed.isDecision {
            compared += 1
            builders[call.tier, default: TierBuilder(tier: call.tier, exampleLimit: exampleLimit)].add(call)
        }
        answeredOtherwise = calls.count - compared
        for call in calls
        where call.recorded != call.replayed && !(call.recorded.isDecision && call.replayed.isDecision) {
            changedOtherwise["\(call.recorded) → \(call.replayed)", default: 0] += 1
        }
        tiers = builders.keys.sorted().compactMap { builders[$0]?.changes }
    }

    /// The calls of ``changedOtherwise``, summed.
    package var changedOtherwiseCalls: Int { changedOtherwise.values.reduce(0, +) }

    /// Changes summed over every tier.
    package var changedCalls: Int {
        tiers.reduce(0) { total, tier in
            total + tier.admittedToRefusedTotal.calls + tier.refusedToAdmitted.calls + tier.refusedByAnotherWindow.calls
        }
    }
}

/// Gathers one tier's changes, counting distinct users as it goes.
private struct TierBuilder {
    var changes: WhatIfReport.TierChanges
    let exampleLimit: Int
    var users: [String: Set<String>] = [:]

    init(tier: String, exampleLimit: Int) {
        changes = WhatIfReport.TierChanges(tier: tier)
        self.exampleLimit = exampleLimit
    }

    mutating func add(_ call: MeteredCall) {
        switch (call.recorded, call.replayed) {
        case (.admitted, .admitted):
            changes.stillAdmitted += 1
        case (.refused(let before), .refused(let now)):
            if before == now || before == nil || now == nil {
                changes.stillRefused += 1
            } else {
                record(call, in: \.refusedByAnotherWindow, key: "window")
                affect(call)
            }
        case (.admitted, .refused(let window)):
            record(call, in: \.admittedToRefusedTotal, key: "refused")
            if let window {
                var change = changes.admittedToRefused[window] ?? WhatIfReport.Change()
                add(call, to: &change, key: "refused-" + window.rawValue)
                changes.admittedToRefused[window] = change
            }
            affect(call)
        case (.refused, .admitted):
            record(call, in: \.refusedToAdmitted, key: "admitted")
            affect(call)
        default:
            record(call, in: \.otherChanges, key: "other")
        }
    }

    /// Counts the call's user among those the new limits affect.
    private mutating func affect(_ call: MeteredCall) {
        guard let user = call.userID else { return }
        users["affected", default: []].insert(user)
        changes.usersAffected = users["affected"]?.count ?? 0
    }

    private mutating func record(
        _ call: MeteredCall, in path: WritableKeyPath<WhatIfReport.TierChanges, WhatIfReport.Change>, key: String
    ) {
        var change = changes[keyPath: path]
        add(call, to: &change, key: key)
        changes[keyPath: path] = change
    }

    private mutating func add(_ call: MeteredCall, to change: inout WhatIfReport.Change, key: String) {
        change.calls += 1
        if change.examples.count < exampleLimit { change.examples.append(call) }
        if let user = call.userID { users[key, default: []].insert(user) }
        change.users = users[key]?.count ?? 0
    }
}
