import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTime
import Testing

/// What the emulator (`--now`, `--at`, `x-inkra-recorded-at`, S3 export timestamps) and the
/// package's civil-time parser (`CivilTime.instant(iso8601:)`, which InkraTesting's dates read)
/// read as an instant.
/// The forms are RFC 3339's internet date-time (the ISO 8601 profile the package writes).
@Suite("ISO-8601 instants as the emulator and the runtime's clock read them")
struct ISO8601ParsingTests {
    /// An input, and the seconds since 1970 it names.
    struct Case: Sendable, CustomTestStringConvertible {
        var text: String
        var seconds: Double
        var testDescription: String { text.debugDescription }
    }

    /// Accepted by both: whole seconds, fractions, `Z` and offsets of every form ISO 8601 allows.
    static let dateTimes: [Case] = [
        Case(text: "2026-03-10T10:00:00Z", seconds: 1_773_136_800),
        Case(text: "2026-03-10T10:00:00.250Z", seconds: 1_773_136_800.25),
        Case(text: "2026-03-10T10:00:00.5Z", seconds: 1_773_136_800.5),
        Case(text: "2026-11-16T08:00:00.123Z", seconds: 1_794_816_000.123),
        Case(text: "2026-03-10T11:00:00+01:00", seconds: 1_773_136_800),
        Case(text: "2026-03-10T11:00:00.250+01:00", seconds: 1_773_136_800.25),
        Case(text: "2026-03-10T05:30:00-04:30", seconds: 1_773_136_800),
        Case(text: "2026-03-10T11:00:00+0100", seconds: 1_773_136_800),
        Case(text: "2026-03-10T10:00:00+01", seconds: 1_773_133_200),
        Case(text: "2026-03-10T10:00:00-00:00", seconds: 1_773_136_800),
        Case(text: "2024-02-29T00:00:00Z", seconds: 1_709_164_800),
        Case(text: "1583-01-01T00:00:00Z", seconds: -12_212_553_600),
        Case(text: "9999-12-31T23:59:59Z", seconds: 253_402_300_799),
    ]

    /// Refused by both: not an instant, or a field out of range.
    static let refused = [
        "", "not a date", "yesterday", "1773136800", "2026", "2026-03", "10:00:00Z", "T10:00:00Z",
        "20260310T100000Z", "+2026-03-10T10:00:00Z", "2026-13-10T10:00:00Z", "2026-00-10T10:00:00Z",
        "2026-03-00T10:00:00Z",
    ]

    static func clock(_ text: String) -> Timestamp? {
        CivilTime.instant(iso8601: text)
    }

    static func close(_ date: Timestamp?, _ seconds: Double) -> Bool {
        guard let date else { return false }
        return abs(date.timeIntervalSince1970 - seconds) < 0.000_001
    }

    @Test(
        "A date-time with seconds and a zone, with or without a fraction, is read alike by both", arguments: dateTimes)
    func dateTime(_ input: Case) {
        #expect(
            Self.close(CivilTime.instant(iso8601: input.text, allowingDate: true), input.seconds),
            "emulator: \(String(describing: CivilTime.instant(iso8601: input.text, allowingDate: true)))")
        #expect(
            Self.close(Self.clock(input.text), input.seconds), "clock: \(String(describing: Self.clock(input.text)))")
    }

    @Test("A date alone is midnight UTC for the emulator's flags; the runtime's clock refuses it")
    func dateAlone() {
        #expect(Self.close(CivilTime.instant(iso8601: "2026-03-10", allowingDate: true), 1_773_100_800))
        #expect(Self.close(CivilTime.instant(iso8601: "2024-02-29", allowingDate: true), 1_709_164_800))
        #expect(Self.clock("2026-03-10") == nil)
    }

    @Test("What is not an instant is refused by both", arguments: refused)
    func refusedByBoth(_ text: String) {
        #expect(CivilTime.instant(iso8601: text, allowingDate: true) == nil)
        #expect(Self.clock(text) == nil)
    }

    /// Shapes Foundation's `ISO8601DateFormatter` read leniently, often as a different instant
    /// (a date-time without a zone as that day's midnight, February 30 as March 2).
    static let misread = [
        "2026-03-10T10:00:00", "2026-03-10T10:00Z", "2026-03-10 10:00:00Z", "2026/03/10T10:00:00Z", "2026-03-1x",
        "2026-02-30T10:00:00Z", "2025-02-29T00:00:00Z", "2026-03-10T24:00:00Z", "2026-03-10T10:60:00Z",
        "2026-3-10T10:00:00Z", "2026-03-10T10:00:00.Z", "2026-03-10T10:00:00,5Z", "2026-03-10T10:00:00+25:00",
        " 2026-03-10T10:00:00Z", "2026-03-10T10:00:00Z ", "2026-03-10T10:00:00ZZ", "2026-03-10T10:00:00.250+01:00x",
        "2026-03-10Z",
    ]

    @Test("A date-time out of shape or range is refused rather than read as another instant", arguments: misread)
    func misreadRefused(_ text: String) {
        #expect(CivilTime.instant(iso8601: text, allowingDate: true) == nil)
        #expect(Self.clock(text) == nil)
    }

    @Test("Lower-case t and z, RFC 3339 allows, name the same instant as upper-case")
    func lowerCase() {
        #expect(Self.close(CivilTime.instant(iso8601: "2026-03-10t10:00:00z", allowingDate: true), 1_773_136_800))
        #expect(Self.close(Self.clock("2026-03-10t10:00:00.250z"), 1_773_136_800.25))
    }
}
