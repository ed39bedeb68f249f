import Foundation
import InkraTesting
import InkraTime

/// Parses `2026-03-10T10:00:00Z` for tests.
func instant(_ text: String) -> Timestamp { Timestamp(iso8601: text) }

/// Epoch seconds of an ISO-8601 instant.
func epoch(_ text: String) -> Int {
    Int(instant(text).timeIntervalSince1970)
}
