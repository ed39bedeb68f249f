#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A point in time: seconds since 1970-01-01T00:00:00Z (Unix time), with their fraction.
///
/// What the shipped modules use where Foundation has `Date`, so that `bootstrap` links no
/// Foundation (about 2.7 MB of its symbols). Its members are named as `Date`'s are; a program that
/// has a `Date` converts with `Timestamp(timeIntervalSince1970: date.timeIntervalSince1970)`.
/// It prints as ISO 8601 in UTC, to the millisecond.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z; negative before.
    public var timeIntervalSince1970: Double

    public init(timeIntervalSince1970: Double) {
        self.timeIntervalSince1970 = timeIntervalSince1970
    }

    /// The system's real-time clock now.
    public static var now: Timestamp {
        var reading = timespec()
        clock_gettime(CLOCK_REALTIME, &reading)
        return Timestamp(timeIntervalSince1970: Double(reading.tv_sec) + Double(reading.tv_nsec) / 1_000_000_000)
    }

    /// This instant moved by `seconds` (earlier when negative).
    public func addingTimeInterval(_ seconds: Double) -> Timestamp {
        Timestamp(timeIntervalSince1970: timeIntervalSince1970 + seconds)
    }

    /// Seconds from `other` to this instant (negative when `other` is later).
    package func timeIntervalSince(_ other: Timestamp) -> Double {
        timeIntervalSince1970 - other.timeIntervalSince1970
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.timeIntervalSince1970 < rhs.timeIntervalSince1970
    }

    /// ISO 8601 in UTC, to the millisecond: `2026-03-10T10:00:00.000Z`.
    public var description: String { CivilTime.iso8601Milliseconds(self) }
}
