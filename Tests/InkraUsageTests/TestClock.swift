import Foundation

/// Parses `2026-03-10T10:00:00Z` for tests.
func instant(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    guard let date = formatter.date(from: text) else { fatalError("bad test date \(text)") }
    return date
}

/// Epoch seconds of an ISO-8601 instant.
func epoch(_ text: String) -> Int {
    Int(instant(text).timeIntervalSince1970)
}
