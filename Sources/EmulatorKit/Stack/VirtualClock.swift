import Foundation
import InkraTime
import Synchronization

/// `serve --clock virtual`: the real time plus an offset a developer moves (`POST /_inkra/clock`,
/// `inkra-emulator clock`), so an hour's limit, a token's expiry, a cached authorizer answer, an
/// idempotency record or a month can be crossed without waiting. Time still flows between moves.
/// Everything the stack reads time from (``EmulatorOptions/clock``) reads this clock.
package final class VirtualClock: Sendable {
    private let offset: Mutex<TimeInterval>
    /// The real time it flows with (the command line's clock), which deadlines in real seconds read.
    package let real: @Sendable () -> Timestamp

    /// A clock that reads `start` now (the real time when `nil`), and flows from there with `real`.
    package init(start: Timestamp? = nil, real: @escaping @Sendable () -> Timestamp) {
        self.real = real
        offset = Mutex(start.map { $0.timeIntervalSince(real()) } ?? 0)
    }

    /// The time now.
    package func now() -> Timestamp { real().addingTimeInterval(offset.withLock { $0 }) }

    /// Moves the clock forward by `seconds` (not backward: time the stack has seen does not undo).
    /// - Returns: the time after the move.
    /// - Throws: ``EmulatorError`` for a negative or non-finite amount.
    @discardableResult
    package func advance(by seconds: TimeInterval) throws(EmulatorError) -> Timestamp {
        guard seconds.isFinite, seconds >= 0 else {
            throw EmulatorError("the clock only moves forward: advance by a positive duration, not \(seconds) s")
        }
        offset.withLock { $0 += seconds }
        return now()
    }

    /// Sets the clock to `instant`, which must not be before its time now.
    /// - Returns: the time after the move.
    /// - Throws: ``EmulatorError`` for an instant in the clock's past.
    @discardableResult
    package func set(to instant: Timestamp) throws(EmulatorError) -> Timestamp {
        let current = now()
        guard instant >= current else {
            throw EmulatorError(
                "the clock only moves forward: \(CivilTime.iso8601(instant)) is before its time, \(CivilTime.iso8601(current))"
            )
        }
        return try advance(by: instant.timeIntervalSince(current))
    }

    /// A duration as the clock's requests write it: ISO 8601 (`PT1H`, `P1D`, `PT90S`, `P1DT2H30M`) or
    /// a number with a unit (`90s`, `15m`, `1h`, `2d`); `nil` when it is neither.
    package static func seconds(of text: String) -> TimeInterval? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        if let unit = trimmed.last.flatMap({ units[$0] }), let number = Double(trimmed.dropLast()), number >= 0 {
            return number * unit
        }
        guard trimmed.hasPrefix("P"), trimmed.count > 1 else { return nil }
        var total: TimeInterval = 0
        var number = ""
        var inTime = false
        var parts = 0
        var timeParts = 0
        for character in trimmed.dropFirst() {
            if character == "T" {
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
            } else if character.isNumber || character == "." {
                number.append(character)
            } else {
                guard let value = Double(number) else { return nil }
                switch (inTime, character) {
                case (false, "D"): total += value * 86400
                case (false, "W"): total += value * 7 * 86400
                case (true, "H"): total += value * 3600
                case (true, "M"): total += value * 60
                case (true, "S"): total += value
                default: return nil
                }
                number = ""
                parts += 1
                if inTime { timeParts += 1 }
            }
        }
        return number.isEmpty && parts > 0 && (!inTime || timeParts > 0) ? total : nil
    }
}
