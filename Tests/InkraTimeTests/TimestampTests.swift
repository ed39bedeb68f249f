import Foundation
import InkraTime
import Testing

@Suite("Timestamp: Unix time where Foundation has Date")
struct TimestampTests {
    @Test("Now is the system's real time, as Foundation reads it")
    func nowAgreesWithFoundation() {
        let before = Date().timeIntervalSince1970
        let now = Timestamp.now.timeIntervalSince1970
        let after = Date().timeIntervalSince1970
        #expect(before - 0.001 <= now && now <= after + 0.001)
    }

    @Test("Moves, measures, orders and prints as ISO 8601 to the millisecond")
    func arithmetic() throws {
        let start = try #require(CivilTime.instant(iso8601: "2026-03-10T10:00:00Z"))
        #expect(start.timeIntervalSince1970 == 1_773_136_800)
        let later = start.addingTimeInterval(90.5)
        #expect(later.timeIntervalSince(start) == 90.5)
        #expect(later.addingTimeInterval(-90.5) == start)
        #expect(start < later && Timestamp(timeIntervalSince1970: 0) < start)
        #expect("\(later)" == "2026-03-10T10:01:30.500Z")
        #expect("\(Timestamp(timeIntervalSince1970: -0.25))" == "1969-12-31T23:59:59.750Z")
    }
}
