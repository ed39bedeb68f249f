import Foundation
import InkraTesting
import InkraTime
import InkraUsage
import Testing

@Suite("ManualClock")
struct ManualClockTests {
    @Test("advance(by:) and set(_:) move it; closure reads it as it is at each call")
    func moves() {
        let clock = ManualClock()
        let now = clock.closure
        #expect(now() == Timestamp(iso8601: "2026-03-10T10:00:00Z"))
        clock.advance(by: .seconds(90))
        #expect(now() == Timestamp(iso8601: "2026-03-10T10:01:30Z"))
        clock.advance(by: .milliseconds(250))
        #expect(clock.now == Timestamp(iso8601: "2026-03-10T10:01:30.250Z"))
        clock.set("2026-03-09T23:00:00+01:00")
        #expect(now() == Timestamp(iso8601: "2026-03-09T22:00:00Z"))
        clock.set(Timestamp(timeIntervalSince1970: 0))
        #expect(clock.now == Timestamp(iso8601: "1970-01-01T00:00:00Z"))
    }

    @Test(
        "advance(toStartOfNext:) steps to the first second of the next UTC hour, day or month",
        arguments: [
            ("2026-03-10T10:59:59Z", "hour", "2026-03-10T11:00:00Z"),
            ("2026-03-10T23:20:00Z", "hour", "2026-03-11T00:00:00Z"),
            ("2026-03-10T10:20:00Z", "day", "2026-03-11T00:00:00Z"),
            ("2026-03-31T23:59:59Z", "day", "2026-04-01T00:00:00Z"),
            ("2028-02-28T12:00:00Z", "day", "2028-02-29T00:00:00Z"),
            ("2026-03-10T10:20:00Z", "month", "2026-04-01T00:00:00Z"),
            ("2026-12-31T23:59:59Z", "month", "2027-01-01T00:00:00Z"),
            ("2028-02-01T00:00:00Z", "month", "2028-03-01T00:00:00Z"),
        ])
    func edges(start: String, window: String, next: String) throws {
        let clock = ManualClock(start)
        clock.advance(toStartOfNext: try #require(UsageWindow(rawValue: window)))
        #expect(clock.now == Timestamp(iso8601: next))
    }
}
