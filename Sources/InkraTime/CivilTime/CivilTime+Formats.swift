/// The package's one home for writing instants as text, in UTC: ISO 8601 for usage timestamps,
/// recordings, log lines and the emulator's event times, and API Gateway's `requestTime` for the
/// events the emulator and InkraTesting build (integer arithmetic, no formatter objects).
extension CivilTime {
    /// `2026-03-10T10:00:00Z`: the instant to the whole second (rounded down).
    package static func iso8601(_ instant: Timestamp) -> String {
        CivilTime(instant).iso8601
    }

    /// `2026-03-10T10:00:00.123Z`: the instant to the millisecond (rounded down), read to the
    /// nearest microsecond first, so that a date made from whole milliseconds (`requestTimeEpoch`)
    /// shows them, whatever the `Double` makes of them.
    package static func iso8601Milliseconds(_ instant: Timestamp) -> String {
        let microseconds = Int64((instant.timeIntervalSince1970 * 1_000_000).rounded())
        let milliseconds = microseconds >= 0 ? microseconds / 1000 : (microseconds - 999) / 1000
        return iso8601(milliseconds: milliseconds)
    }

    /// `2026-03-10T10:00:00.123Z`, from whole milliseconds since 1970 themselves (no rounding of a
    /// `Double`).
    package static func iso8601(milliseconds: Int64) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = Int(milliseconds - seconds * 1000)
        let digits = String(fraction)
        return CivilTime(epochSeconds: Int(seconds)).iso8601.dropLast() + "."
            + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// `10/Mar/2026:10:00:00 +0000`: API Gateway's `requestContext.requestTime` (REST) and `time`
    /// (HTTP API), to the whole second (rounded down).
    package static func apiGatewayTime(_ instant: Timestamp) -> String {
        let civil = CivilTime(instant)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        return "\(two(civil.day))/\(monthNames[civil.month - 1])/\(civil.year):\(two(civil.hour)):"
            + "\(two(civil.minute)):\(two(civil.second)) +0000"
    }

    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
}
