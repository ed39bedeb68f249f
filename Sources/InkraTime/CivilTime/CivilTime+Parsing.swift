/// The package's one home for reading instants from text, beside the one for writing them:
/// RFC 3339's internet date-time (the ISO 8601 profile this package writes), digit by digit with
/// integer arithmetic and no formatter objects (the emulator's `x-inkra-recorded-at`, `--now`, the
/// test library's instants).
extension CivilTime {
    /// The instant `text` names: `2026-03-10T10:00:00Z`, with fractional seconds
    /// (`2026-03-10T10:00:00.250Z`, kept to the nanosecond digit) and a `Z` or an offset (`+01:00`,
    /// `+0100` or `+01`); `T` and `Z` in either case. With `allowingDate`, also a date alone
    /// (`2026-03-10`, midnight UTC).
    ///
    /// A field out of its range (month 13, February 30, hour 24, minute 60), a missing zone, any
    /// other shape, or anything before or after (a space included) is refused: `nil`. A leap second (`:60`) is read as
    /// the first second of the next minute.
    package static func instant(iso8601 text: some StringProtocol, allowingDate: Bool = false) -> Timestamp? {
        var reader = DigitReader(Array(text.utf8))
        guard let year = reader.number(digits: 4), reader.skip("-"), let month = reader.number(digits: 2),
            reader.skip("-"), let day = reader.number(digits: 2), (1...12).contains(month), day >= 1
        else { return nil }
        let midnight = CivilTime(year: year, month: month, day: day)
        let days = midnight.epochSeconds
        guard CivilTime(epochSeconds: days).day == day else { return nil }  // February 30 comes back as March 2
        if reader.atEnd { return allowingDate ? midnight.date : nil }
        guard reader.skip("T") || reader.skip("t"), let hour = reader.number(digits: 2), reader.skip(":"),
            let minute = reader.number(digits: 2), reader.skip(":"), let second = reader.number(digits: 2),
            hour <= 23, minute <= 59, second <= 60
        else { return nil }
        var nanoseconds = 0
        if reader.skip(".") {
            guard let (value, count) = reader.fraction(), count > 0 else { return nil }
            nanoseconds = value
        }
        var offset = 0
        if reader.skip("Z") || reader.skip("z") {
            offset = 0
        } else if let sign = reader.sign() {
            guard let hours = reader.number(digits: 2), hours <= 23 else { return nil }
            var minutes = 0
            if !reader.atEnd {
                _ = reader.skip(":")
                guard let value = reader.number(digits: 2), value <= 59 else { return nil }
                minutes = value
            }
            offset = sign * (hours * 3_600 + minutes * 60)
        } else {
            return nil
        }
        guard reader.atEnd else { return nil }
        let seconds = days + hour * 3_600 + minute * 60 + second - offset
        return Timestamp(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
    }
}

/// Reads ASCII digits and marks from UTF-8 bytes, front to back.
private struct DigitReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    /// Consumes `mark` when it comes next.
    mutating func skip(_ mark: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: mark) else { return false }
        index += 1
        return true
    }

    /// Exactly `digits` decimal digits, as a number.
    mutating func number(digits: Int) -> Int? {
        guard bytes.count - index >= digits else { return nil }
        var value = 0
        for byte in bytes[index..<(index + digits)] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        index += digits
        return value
    }

    /// A run of digits as nanoseconds (digits past the ninth are read and dropped), and its length.
    mutating func fraction() -> (nanoseconds: Int, count: Int)? {
        var value = 0
        var count = 0
        while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
            if count < 9 { value = value * 10 + Int(bytes[index] - 0x30) }
            count += 1
            index += 1
        }
        for _ in count..<max(count, 9) { value *= 10 }
        return (value, count)
    }

    /// `+1` or `-1` for a sign that comes next.
    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
