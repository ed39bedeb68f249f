import Foundation
import InkraTesting
import InkraTime
import InkraUsage
import Testing

/// The instants a test writes as literals (`Date(iso8601:)`, `ManualClock`): RFC 3339 date-times
/// with seconds and a zone, with or without a fraction.
@Suite("Date(iso8601:): a test's literal instants")
struct InstantParsingTests {
    @Test(
        "Whole seconds, fractions and offsets name the instant they say",
        arguments: [
            ("2026-03-10T10:00:00Z", 1_773_136_800.0), ("2026-03-10T10:00:00.250Z", 1_773_136_800.25),
            ("2026-11-16T08:00:00.123Z", 1_794_816_000.123), ("2026-03-10T11:00:00.250+01:00", 1_773_136_800.25),
            ("2026-03-10T05:30:00-04:30", 1_773_136_800.0), ("2026-03-10T11:00:00+0100", 1_773_136_800.0),
            ("2024-02-29T00:00:00Z", 1_709_164_800.0), ("9999-12-31T23:59:59Z", 253_402_300_799.0),
        ])
    func literal(text: String, seconds: Double) {
        #expect(abs(Timestamp(iso8601: text).timeIntervalSince1970 - seconds) < 0.000_001, "\(text)")
    }

    @Test(
        "CivilTime, the one parser: a fraction to the nanosecond digit, a leap second, a date where allowed",
        arguments: [
            ("2026-03-10T10:00:00.123456789Z", false, 1_773_136_800.123456789),
            ("2026-03-10T10:00:00.1234567891Z", false, 1_773_136_800.123456789),
            ("2016-12-31T23:59:60Z", false, 1_483_228_800.0), ("2026-03-10", true, 1_773_100_800.0),
            ("1969-12-31T23:59:59.5Z", false, -0.5),
            // ISO 8601's proleptic Gregorian calendar, as CivilTime writes it (Foundation's formatter
            // read days before 1582-10-15 in the Julian calendar, two days off here).
            ("0001-01-01T00:00:00Z", false, -62_135_596_800.0),
        ])
    func civilTime(text: String, allowingDate: Bool, seconds: Double) throws {
        let date = try #require(CivilTime.instant(iso8601: text, allowingDate: allowingDate))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001, "\(text)")
    }

    @Test("CivilTime refuses a date alone unless told, and what it writes it reads back")
    func roundTrip() {
        #expect(CivilTime.instant(iso8601: "2026-03-10") == nil)
        let instant = Timestamp(timeIntervalSince1970: 1_794_816_000.123)
        let text = CivilTime.iso8601Milliseconds(instant)
        #expect(CivilTime.instant(iso8601: text).map(CivilTime.iso8601Milliseconds) == text)
    }
}
