import InkraJSON
import InkraTime
import InkraUsage

extension WhatIfReport {
    /// The report as `replay report --json` prints it, one object:
    ///
    /// ```json
    /// {"limitsFile": "new.json", "limits": {"free": {"monthly": 5, "daily": 3, "hourly": 1}, …},
    ///  "algorithm": "calendar",
    ///  "events": 20, "compared": 10, "notMetered": 10, "withoutRecording": 0, "answeredOtherwise": 0, "changedCalls": 2,
    ///  "changedOtherwise": {"calls": 1, "byTransition": {"admitted → 401": 1}},
    ///  "tiers": {"free": {"usersAffected": 1, "stillAdmitted": 4, "stillRefused": 2,
    ///    "admittedToRefused": {"calls": 2, "users": 1, "examples": […],
    ///      "byWindow": {"month": {…}, "day": {…}, "hour": {"calls": 2, "users": 1, "examples": […]}}},
    ///    "refusedToAdmitted": {…}, "refusedByAnotherWindow": {…}, "otherChanges": {…}}},
    ///  "problems": [{"file": …, "problem": …}]}
    /// ```
    package var json: JSONValue {
        var limitsObject = JSONObject()
        for (tier, tierLimits) in limits.tiers.sorted(by: { $0.key < $1.key }) { limitsObject[tier] = tierLimits.json }
        var tiersObject = JSONObject()
        for tier in tiers { tiersObject[tier.tier] = Self.json(for: tier) }
        return [
            "limitsFile": limitsFile.map(JSONValue.string) ?? .null,
            "limits": .object(limitsObject),
            "algorithm": .string(algorithm.rawValue),
            "events": .number(events),
            "compared": .number(compared),
            "notMetered": .number(notMetered),
            "withoutRecording": .number(withoutRecording),
            "answeredOtherwise": .number(answeredOtherwise),
            "changedCalls": .number(changedCalls),
            "changedOtherwise": [
                "calls": .number(changedOtherwiseCalls),
                "byTransition": .object(
                    JSONObject(changedOtherwise.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.number($0.value)) })
                ),
            ],
            "tiers": .object(tiersObject),
            "problems": .array(problems.map { ["file": .string($0.file), "problem": .string($0.problem)] }),
        ]
    }

    private static func json(for tier: TierChanges) -> JSONValue {
        var byWindow = JSONObject()
        for window in UsageWindow.allCases {
            byWindow[window.rawValue] = json(for: tier.admittedToRefused[window] ?? Change())
        }
        var admittedToRefused = json(for: tier.admittedToRefusedTotal)
        admittedToRefused.set(.object(byWindow), at: ["byWindow"])
        return [
            "usersAffected": .number(tier.usersAffected),
            "stillAdmitted": .number(tier.stillAdmitted),
            "stillRefused": .number(tier.stillRefused),
            "admittedToRefused": admittedToRefused,
            "refusedToAdmitted": json(for: tier.refusedToAdmitted),
            "refusedByAnotherWindow": json(for: tier.refusedByAnotherWindow),
            "otherChanges": json(for: tier.otherChanges),
        ]
    }

    private static func json(for change: Change) -> JSONValue {
        [
            "calls": .number(change.calls), "users": .number(change.users),
            "examples": .array(change.examples.map(json(for:))),
        ]
    }

    /// An example: identifiers, the time, and both outcomes; never the request's content.
    private static func json(for call: MeteredCall) -> JSONValue {
        [
            "requestId": call.requestID.map(JSONValue.string) ?? .null,
            "userId": call.userID.map(JSONValue.string) ?? .null,
            "recordedAt": call.recordedAt.map { .string(CivilTime.iso8601($0)) } ?? .null,
            "file": .string(call.file),
            "recorded": .string(call.recorded.description),
            "replayed": .string(call.replayed.description),
        ]
    }
}

extension Limits {
    /// `{"monthly": 5, "daily": 3, "hourly": 1}`.
    var json: JSONValue { ["monthly": .number(monthly), "daily": .number(daily), "hourly": .number(hourly)] }
}
