/// A UTC calendar reading of an instant, computed with integer arithmetic (no `Calendar`, no
/// formatter), so the usage hot path stays cheap.
package struct CivilTime: Hashable, Sendable {
    /// The year.
    package internal(set) var year: Int
    /// The month, 1–12.
    package internal(set) var month: Int
    /// The day of the month, 1–31.
    package internal(set) var day: Int
    /// The hour, 0–23.
    package internal(set) var hour: Int
    /// The minute, 0–59.
    package internal(set) var minute: Int
    /// The second, 0–59.
    package internal(set) var second: Int

    /// Reads an instant in UTC, to the whole second (rounded down).
    package init(_ instant: Timestamp) {
        self.init(epochSeconds: Int(instant.timeIntervalSince1970.rounded(.down)))
    }

    /// Reads epoch seconds in UTC.
    package init(epochSeconds: Int) {
        let days = Self.floorDivide(epochSeconds, 86_400)
        let secondsOfDay = epochSeconds - days * 86_400
        (year, month, day) = Self.civil(fromDays: days)
        hour = secondsOfDay / 3_600
        minute = (secondsOfDay % 3_600) / 60
        second = secondsOfDay % 60
    }

    package init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Seconds since 1970-01-01T00:00:00Z.
    package var epochSeconds: Int {
        Self.days(fromCivil: year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second
    }

    package var date: Timestamp { Timestamp(timeIntervalSince1970: Double(epochSeconds)) }

    /// `YYYY-MM`.
    package var monthKey: String { text(length: 7) }
    /// `YYYY-MM-DD`.
    package var dayKey: String { text(length: 10) }
    /// `YYYY-MM-DDTHH`.
    package var hourKey: String { text(length: 13) }
    /// `YYYY-MM-DDTHH:MM:SSZ`.
    package var iso8601: String { text(length: 20) }

    /// `YYYY-MM-DDTHH:MM:SSZ` up to the `length`-th character after the year's four digits (a
    /// year past 9999 is written in full), digit by digit: these keys are made for every
    /// consumption.
    private func text(length: Int) -> String {
        func field(_ index: Int) -> (value: Int, width: Int, then: UInt8) {
            switch index {
            case 0: (year, 4, UInt8(ascii: "-"))
            case 1: (month, 2, UInt8(ascii: "-"))
            case 2: (day, 2, UInt8(ascii: "T"))
            case 3: (hour, 2, UInt8(ascii: ":"))
            case 4: (minute, 2, UInt8(ascii: ":"))
            default: (second, 2, UInt8(ascii: "Z"))
            }
        }
        let yearWidth = (year < 0 ? 1 : 0) + max(4, Self.digitCount(year.magnitude))
        let count = length + yearWidth - 4
        // Straight into the string's storage: no arrays on a path every consumption takes.
        return String(unsafeUninitializedCapacity: count) { buffer in
            func put(_ byte: UInt8, at offset: Int) {
                if offset < count { buffer[offset] = byte }
            }
            var position = 0
            for index in 0..<6 {
                let (value, minimum, then) = field(index)
                if value < 0 {
                    put(UInt8(ascii: "-"), at: position)
                    position += 1
                }
                let digits = max(minimum, Self.digitCount(value.magnitude))
                var rest = value.magnitude
                for offset in stride(from: position + digits - 1, through: position, by: -1) {
                    put(UInt8(ascii: "0") + UInt8(rest % 10), at: offset)
                    rest /= 10
                }
                position += digits
                put(then, at: position)
                position += 1
            }
            return count
        }
    }

    private static func digitCount(_ value: UInt) -> Int {
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        return digits
    }

    /// The first instant of the next UTC hour.
    package var startOfNextHour: CivilTime {
        CivilTime(epochSeconds: CivilTime(year: year, month: month, day: day, hour: hour).epochSeconds + 3_600)
    }

    /// The next UTC midnight.
    package var startOfNextDay: CivilTime {
        CivilTime(epochSeconds: CivilTime(year: year, month: month, day: day).epochSeconds + 86_400)
    }

    /// The first instant of the next UTC month.
    package var startOfNextMonth: CivilTime {
        month == 12 ? CivilTime(year: year + 1, month: 1, day: 1) : CivilTime(year: year, month: month + 1, day: 1)
    }

    private static func floorDivide(_ a: Int, _ b: Int) -> Int {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    // Howard Hinnant's days-from-civil and civil-from-days algorithms (proleptic Gregorian).
    private static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let monthIndex = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
