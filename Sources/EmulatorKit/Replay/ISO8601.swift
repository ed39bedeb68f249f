import Foundation
import InkraUsage

/// ISO-8601 instants as flags and event files write them.
package enum ISO8601 {
    /// Parses `2026-03-10T10:00:00Z`, with or without fractional seconds, or a date `2026-03-10`
    /// (midnight UTC).
    package static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withFullDate]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.date(from: text)
    }

    /// Formats an instant as `2026-03-10T10:00:00Z` (the package's one formatter, ``CivilTime``).
    package static func format(_ date: Date) -> String {
        CivilTime.iso8601(date)
    }
}
