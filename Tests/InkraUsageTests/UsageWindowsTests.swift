import Foundation
import InkraTime
import Testing

@testable import InkraUsage

@Suite("UTC calendar windows")
struct UsageWindowsTests {
    @Test("An instant's month, day and hour keys")
    func keys() {
        let windows = UsageWindows(at: instant("2026-03-10T10:20:30Z"))
        #expect(windows.month == "2026-03")
        #expect(windows.day == "2026-03-10")
        #expect(windows.hour == "2026-03-10T10")
        #expect(windows.timestamp == "2026-03-10T10:20:30Z")
        #expect(windows.resetDate == "2026-04-01")
        #expect(windows.hourResetsAt == instant("2026-03-10T11:00:00Z"))
        #expect(windows.dayResetsAt == instant("2026-03-11T00:00:00Z"))
        #expect(windows.monthResetsAt == instant("2026-04-01T00:00:00Z"))
        #expect(windows.secondsUntilReset(.hour) == 39 * 60 + 30)
    }

    @Test("Instants in one second share their windows; the next second and an earlier one get their own")
    func sameSecond() async {
        let base = instant("2026-01-31T23:59:59Z")
        let sequence: [(TimeInterval, String, String)] = [
            (0.1, "2026-01", "2026-01-31T23:59:59Z"), (0.9, "2026-01", "2026-01-31T23:59:59Z"),
            (1.0, "2026-02", "2026-02-01T00:00:00Z"), (0.5, "2026-01", "2026-01-31T23:59:59Z"),
            (-86_400, "2026-01", "2026-01-30T23:59:59Z"),
        ]
        for (offset, month, timestamp) in sequence {
            let windows = UsageWindows(at: base.addingTimeInterval(offset))
            #expect(windows.month == month)
            #expect(windows.timestamp == timestamp)
            #expect(windows.instant == instant(timestamp))
        }
        // Four tasks alternating between the two sides of a month boundary always read their own.
        let wrong = await withTaskGroup(of: Int.self) { group in
            for task in 0..<4 {
                group.addTask {
                    var wrong = 0
                    for step in 0..<1_000 {
                        let later = (step + task) % 2 == 0
                        let windows = UsageWindows(at: base.addingTimeInterval(later ? 1.5 : 0.5))
                        if windows.month != (later ? "2026-02" : "2026-01") { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }

    @Test(
        "Window edges",
        arguments: [
            ("2026-03-10T23:59:59Z", "2026-03-10", "2026-03-10T23", "2026-04-01", 1),
            ("2026-03-11T00:00:00Z", "2026-03-11", "2026-03-11T00", "2026-04-01", 86_400),
            ("2026-12-31T23:59:59Z", "2026-12-31", "2026-12-31T23", "2027-01-01", 1),
            ("2027-01-01T00:00:00Z", "2027-01-01", "2027-01-01T00", "2027-02-01", 86_400),
            ("2028-02-29T12:00:00Z", "2028-02-29", "2028-02-29T12", "2028-03-01", 43_200),
            ("2026-02-28T23:59:59Z", "2026-02-28", "2026-02-28T23", "2026-03-01", 1),
            ("2000-02-29T00:00:00Z", "2000-02-29", "2000-02-29T00", "2000-03-01", 86_400),
            ("1999-12-31T23:30:00Z", "1999-12-31", "1999-12-31T23", "2000-01-01", 1_800),
        ]
    )
    func edges(at text: String, day: String, hour: String, resetDate: String, secondsToMidnight: Int) {
        let windows = UsageWindows(at: instant(text))
        #expect(windows.day == day)
        #expect(windows.hour == hour)
        #expect(windows.month == String(day.prefix(7)))
        #expect(windows.resetDate == resetDate)
        #expect(windows.secondsUntilReset(.day) == secondsToMidnight)
    }

    @Test("Civil time agrees with Foundation's calendar across many instants")
    func agreesWithCalendar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var seconds = -2_000_000_000
        while seconds < 4_000_000_000 {
            let date = Timestamp(timeIntervalSince1970: TimeInterval(seconds))
            let parts = calendar.dateComponents(
                [.year, .month, .day, .hour, .minute, .second],
                from: Date(timeIntervalSince1970: date.timeIntervalSince1970))
            let civil = CivilTime(date)
            #expect(civil.year == parts.year && civil.month == parts.month && civil.day == parts.day)
            #expect(civil.hour == parts.hour && civil.minute == parts.minute && civil.second == parts.second)
            #expect(civil.epochSeconds == seconds)
            seconds += 7_777_777
        }
    }

    @Test("Keys and timestamps agree with Foundation's ISO 8601 text, and years beyond 9999 are written in full")
    func textAgreesWithFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")!
        var seconds = -2_000_000_000
        while seconds < 4_000_000_000 {
            let date = Timestamp(timeIntervalSince1970: TimeInterval(seconds))
            let expected = formatter.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970))
            let civil = CivilTime(date)
            #expect(civil.iso8601 == expected)
            #expect(civil.hourKey == String(expected.prefix(13)))
            #expect(civil.dayKey == String(expected.prefix(10)))
            #expect(civil.monthKey == String(expected.prefix(7)))
            seconds += 7_777_777
        }
        let early = CivilTime(year: 987, month: 6, day: 5, hour: 4, minute: 3, second: 2)
        #expect(early.iso8601 == "0987-06-05T04:03:02Z")
        let far = CivilTime(year: 12_345, month: 1, day: 2, hour: 3, minute: 4, second: 5)
        #expect(far.iso8601 == "12345-01-02T03:04:05Z")
        #expect(far.dayKey == "12345-01-02")
        #expect(far.monthKey == "12345-01")
    }

    @Test("Millisecond timestamps agree with Foundation's ISO 8601 text, before and after 1970")
    func millisecondsAgreeWithFoundation() {
        // ISO8601DateFormatter, not Date.ISO8601FormatStyle: the latter cuts a date made from
        // whole milliseconds one millisecond short when the Double falls just below them.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var milliseconds: Int64 = -2_000_000_000_123
        while milliseconds < 4_000_000_000_000 {
            let date = Timestamp(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = CivilTime.iso8601(milliseconds: milliseconds)
            #expect(
                text == formatter.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970)),
                "\(milliseconds)")
            #expect(CivilTime.iso8601Milliseconds(date) == text, "\(milliseconds)")
            #expect(CivilTime.iso8601(date) == String(text.prefix(19)) + "Z")
            milliseconds += 7_777_777_777
        }
        #expect(CivilTime.iso8601(milliseconds: 1_773_136_800_007) == "2026-03-10T10:00:00.007Z")
        #expect(CivilTime.iso8601(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        #expect(CivilTime.iso8601(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(
            CivilTime.iso8601Milliseconds(Timestamp(timeIntervalSince1970: 1_773_136_800.0079))
                == "2026-03-10T10:00:00.007Z"
        )
        #expect(CivilTime.iso8601Milliseconds(Timestamp(timeIntervalSince1970: -0.0001)) == "1969-12-31T23:59:59.999Z")
    }

    @Test("API Gateway's requestTime agrees with Foundation's calendar across many instants")
    func apiGatewayTimeAgreesWithFoundation() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")!
        formatter.dateFormat = "dd/MMM/yyyy:HH:mm:ss Z"
        var seconds = 0
        while seconds < 4_000_000_000 {
            let date = Timestamp(timeIntervalSince1970: TimeInterval(seconds) + 0.75)
            #expect(
                CivilTime.apiGatewayTime(date)
                    == formatter.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970)), "\(seconds)")
            seconds += 7_777_777
        }
        #expect(
            CivilTime.apiGatewayTime(Timestamp(timeIntervalSince1970: 1_773_136_800)) == "10/Mar/2026:10:00:00 +0000")
    }
}
