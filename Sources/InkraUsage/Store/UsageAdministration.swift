import InkraTime

/// One window's counter before and after a support tool changed it.
public struct WindowChange: Sendable, Hashable {
    /// The window.
    package var window: UsageWindow
    /// Which one: `2026-11`, `2026-11-17` or `2026-11-17T12`.
    package var period: String
    /// Units used before.
    package var before: Int
    /// Units used after.
    package var after: Int

    /// Whether the counter changed.
    package var changed: Bool { before != after }

    /// Creates a change.
    package init(window: UsageWindow, period: String, before: Int, after: Int) {
        self.window = window
        self.period = period
        self.before = before
        self.after = after
    }
}

/// What a refund did (``UsageStore/refund(_:to:at:reference:)``).
public struct UsageRefund: Sendable, Hashable {
    /// The user.
    package var userID: String
    /// The refund's name: a refund with a reference the user already has changes nothing.
    package var reference: String
    /// The month, the day and the hour, in that order, each with its counter before and after.
    package var changes: [WindowChange]
    /// The refund had been applied before (by this reference): nothing changed now.
    package var alreadyApplied: Bool

    /// Creates a report.
    package init(userID: String, reference: String, changes: [WindowChange], alreadyApplied: Bool) {
        self.userID = userID
        self.reference = reference
        self.changes = changes
        self.alreadyApplied = alreadyApplied
    }

    /// The reference of a refund that names none: the hour of `instant` and the units
    /// (`2026-11-17T12/2`), so the same command run again within the hour changes nothing.
    package static func defaultReference(units: Int, at instant: Timestamp) -> String {
        "\(UsageWindows(at: instant).hour)/\(units)"
    }
}

/// What an erasure removed (``UsageStore/erase(user:)``).
public struct UsageErasure: Sendable, Hashable {
    /// The user.
    package var userID: String
    /// Items removed, by kind: `month`, `day`, `hour`, `idempotency`, `refund` (any other kind by
    /// its sort key's prefix, lowercased).
    package var removedByKind: [String: Int]
    /// How many of the removed items were refusal marks in GSI1 (day items with `GSI1PK`).
    package var refusalMarks: Int

    /// Every item removed.
    package var removed: Int { removedByKind.values.reduce(0, +) }

    /// Creates a report.
    package init(userID: String, removedByKind: [String: Int] = [:], refusalMarks: Int = 0) {
        self.userID = userID
        self.removedByKind = removedByKind
        self.refusalMarks = refusalMarks
    }
}

/// A user refused on a day, as the day item's refusal mark records it.
public struct RefusedUser: Sendable, Hashable {
    /// The user's pseudonym: the table keeps no user id (``ServerSecret/userKey(_:)``), so a
    /// listing names users only as their partitions do; `usage --user ID` computes an id's.
    package var userID: String
    /// The caller's tier at the day's last refusal; `nil` for marks written without one.
    package var tier: String?
    /// The window that refused the user last that day; `nil` for marks written without one.
    package var window: UsageWindow?
    /// When that window starts again, `YYYY-MM-DDTHH:MM:SSZ`.
    package var blockedUntil: String?

    /// Creates a record.
    package init(userID: String, tier: String? = nil, window: UsageWindow? = nil, blockedUntil: String? = nil) {
        self.userID = userID
        self.tier = tier
        self.window = window
        self.blockedUntil = blockedUntil
    }
}
