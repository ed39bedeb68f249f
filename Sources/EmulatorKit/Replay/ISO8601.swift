import Foundation
import InkraTime
import InkraUsage

/// ISO-8601 instants as flags and event files write them.
package enum ISO8601 {
    /// Parses `2026-03-10T10:00:00Z`, with or without fractional seconds, with `Z` or an offset,
    /// or a date `2026-03-10` as midnight UTC: the package's one parser, ``CivilTime``, with dates.
    package static func parse(_ text: String) -> Date? {
        CivilTime.instant(iso8601: text, allowingDate: true)
    }

    /// Formats an instant as `2026-03-10T10:00:00Z` (the package's one formatter, ``CivilTime``).
    package static func format(_ date: Date) -> String {
        CivilTime.iso8601(date)
    }
}
