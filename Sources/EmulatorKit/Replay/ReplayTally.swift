/// How a replay's events fared, counted as they go, so a replay of a million events holds no
/// record once it is reported.
package struct ReplayTally: Sendable, Hashable {
    /// Every event.
    package var events = 0
    /// The events that failed, could not run or mismatched.
    package var failed = 0
    /// The events that passed without an expectation to compare.
    package var unchecked = 0
    /// The expectations `--update` wrote.
    package var updated = 0
    /// The events not checkable against an endpoint (``ReplayRecord/skipped``).
    package var skipped = 0
    /// The event a replay over lanes that keep their keys stopped before, because it ties keys of
    /// two lanes (``LaneConflict``); `nil` when every event ran.
    package var stopped: LaneConflict?

    /// No events yet.
    package init() {}

    /// Counts one record.
    package mutating func add(_ record: ReplayRecord) {
        events += 1
        if !record.ok { failed += 1 }
        if record.skipped != nil && record.ok {
            skipped += 1
            return
        }
        if record.ok && !record.checked && !record.updated { unchecked += 1 }
        if record.updated { updated += 1 }
    }
}
