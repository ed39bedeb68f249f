import Foundation
import InkraTime
import InkraUsage

extension Timestamp {
    /// The instant an ISO 8601 date-time names, such as `2026-03-10T10:00:00Z` or
    /// `2026-03-10T11:00:00.250+01:00`: for the literal instants of a test.
    ///
    /// A test's instants are literals in its source, so a malformed one is the test's own mistake:
    /// it stops the test with a message naming the text, rather than returning an optional every
    /// call site would unwrap.
    /// - Parameter text: a date-time with seconds and a zone (`Z` or an offset), optionally with
    ///   fractional seconds, read by the package's one parser (`CivilTime`).
    package init(iso8601 text: String) {
        guard let date = CivilTime.instant(iso8601: text) else {
            preconditionFailure("not an ISO 8601 date-time such as 2026-03-10T10:00:00Z: \(text)")
        }
        self = date
    }
}
