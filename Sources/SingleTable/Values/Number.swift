/// An exact decimal number, as DynamoDB's `N`: up to 38 significant digits, magnitudes from
/// 1E-130 to 9.99…E+125. Never stored or computed as a `Double`.
///
/// Integers of up to 18 digits — counters, timestamps, limits, most numbers a table holds — are
/// kept as an `Int`, without a digit array; every other number as its digits. Each value has one
/// form only, so two equal numbers are always stored alike.
package struct Number: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    private enum Storage: Hashable {
        /// An integer below 10^18 in magnitude.
        case integer(Int)
        /// Any other number: `digits × 10^exponent`, digits most significant first, without
        /// leading or trailing zeros.
        case decimal(negative: Bool, digits: [UInt8], exponent: Int)
    }

    private let storage: Storage

    /// A number as sign, digits and exponent (`digits × 10^exponent`): the form arithmetic on
    /// digits uses.
    private typealias Parts = (negative: Bool, digits: [UInt8], exponent: Int)

    private init(storage: Storage) {
        self.storage = storage
    }

    /// The most significant digits DynamoDB keeps.
    package static let maximumDigits = 38

    /// The most digits an integer held as an `Int` has: the sum of two such never overflows.
    private static let integerDigits = 18
    /// 10^18, the first magnitude held as digits.
    private static let integerBound = 1_000_000_000_000_000_000

    private init(normalizing negative: Bool, _ digits: [UInt8], _ exponent: Int) {
        var start = 0
        while start < digits.count && digits[start] == 0 { start += 1 }
        var end = digits.count
        var exponent = exponent
        while end > start && digits[end - 1] == 0 {
            end -= 1
            exponent += 1
        }
        if start == end {
            storage = .integer(0)
        } else if exponent >= 0 && end - start + exponent <= Self.integerDigits {
            var value = 0
            for digit in digits[start..<end] { value = value * 10 + Int(digit) }
            for _ in 0..<exponent { value *= 10 }
            storage = .integer(negative ? -value : value)
        } else {
            // Most digit arrays arrive trimmed already; a slice copied would be a second allocation.
            let trimmed = start == 0 && end == digits.count ? digits : Array(digits[start..<end])
            storage = .decimal(negative: negative, digits: trimmed, exponent: exponent)
        }
    }

    /// A number from an integer.
    package init(_ value: Int) {
        if value > -Self.integerBound && value < Self.integerBound {
            self.init(storage: .integer(value))
        } else {
            self.init(normalizing: value < 0, Self.decimalDigits(of: value.magnitude), 0)
        }
    }

    /// The digits of a magnitude, most significant first (none for zero).
    private static func decimalDigits(of magnitude: UInt) -> [UInt8] {
        var magnitude = magnitude
        var digits: [UInt8] = []
        digits.reserveCapacity(20)
        while magnitude > 0 {
            digits.append(UInt8(magnitude % 10))
            magnitude /= 10
        }
        digits.reverse()
        return digits
    }

    /// The number as its parts (digits made for an integer, which has none stored).
    private var parts: Parts {
        switch storage {
        case .integer(let value):
            let (significand, exponent) = Self.withoutTrailingZeros(value.magnitude)
            return (value < 0, Self.decimalDigits(of: significand), exponent)
        case .decimal(let negative, let digits, let exponent):
            return (negative, digits, exponent)
        }
    }

    /// A magnitude as `significand × 10^exponent`, the significand without trailing zeros.
    private static func withoutTrailingZeros(_ magnitude: UInt) -> (significand: UInt, exponent: Int) {
        var (significand, exponent) = (magnitude, 0)
        while significand != 0 && significand % 10 == 0 {
            significand /= 10
            exponent += 1
        }
        return (significand, exponent)
    }

    package init(integerLiteral value: Int) {
        self.init(value)
    }

    /// Parses DynamoDB's number text (`12`, `-0.5`, `1.5e30`).
    /// - Throws: ``TableError`` (`ValidationException`) when the text is not a number, has more than
    ///   38 significant digits, or is out of range.
    package init(parsing text: String) throws(TableError) {
        var bytes = Array(text.utf8)[...]
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var digits: [UInt8] = []
        var exponent = 0
        var sawDigit = false
        var sawPoint = false
        while let byte = bytes.first, byte != UInt8(ascii: "e") && byte != UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if byte == UInt8(ascii: ".") {
                guard !sawPoint else { throw Self.notANumber(text) }
                sawPoint = true
            } else if byte >= 48 && byte <= 57 {
                sawDigit = true
                if !(digits.isEmpty && byte == 48) { digits.append(byte - 48) }
                if sawPoint { exponent -= 1 }
            } else {
                throw Self.notANumber(text)
            }
        }
        guard sawDigit else { throw Self.notANumber(text) }
        if !bytes.isEmpty {
            bytes = bytes.dropFirst()
            var exponentNegative = false
            if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
                exponentNegative = first == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            guard !bytes.isEmpty, bytes.count <= 6, bytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                throw Self.notANumber(text)
            }
            let value = bytes.reduce(0) { $0 * 10 + Int($1 - 48) }
            exponent += exponentNegative ? -value : value
        }
        try self.init(validating: negative, digits, exponent)
    }

    private init(validating negative: Bool, _ digits: [UInt8], _ exponent: Int) throws(TableError) {
        self.init(normalizing: negative, digits, exponent)
        // An integer of at most 18 digits is always in range; only other numbers need the checks.
        guard case .decimal(_, let digits, let exponent) = storage else { return }
        guard digits.count <= Self.maximumDigits else {
            throw TableError(.validation, "Attempting to store more than 38 significant digits in a Number")
        }
        let magnitude = exponent + digits.count - 1
        guard magnitude <= 125 else {
            throw TableError(
                .validation,
                "Number overflow. Attempting to store a number with magnitude larger than supported range"
            )
        }
        guard magnitude >= -130 else {
            throw TableError(
                .validation,
                "Number underflow. Attempting to store a number with magnitude smaller than supported range"
            )
        }
    }

    private static func notANumber(_ text: String) -> TableError {
        TableError(.validation, "A value provided cannot be converted into a number: \"\(text)\"")
    }

    /// Whether the number is zero.
    package var isZero: Bool { storage == .integer(0) }

    /// The canonical text: integers plainly (`999999`), decimals plainly when short (`-0.5`),
    /// others in scientific form (`1.5E+30`).
    package var description: String {
        if case .integer(let value) = storage { return String(value) }
        let (negative, digits, exponent) = parts
        let sign = negative ? "-" : ""
        let text = String(decoding: digits.map { $0 + 48 }, as: UTF8.self)
        if exponent >= 0 && digits.count + exponent <= 40 {
            return sign + text + String(repeating: "0", count: exponent)
        }
        if exponent < 0 && -exponent <= digits.count + 40 {
            let point = digits.count + exponent
            if point > 0 {
                return sign + text.prefix(point) + "." + text.dropFirst(point)
            }
            return sign + "0." + String(repeating: "0", count: -point) + text
        }
        let magnitude = exponent + digits.count - 1
        let mantissa = digits.count == 1 ? text : text.prefix(1) + "." + text.dropFirst()
        return sign + mantissa + "E" + (magnitude >= 0 ? "+" : "") + String(magnitude)
    }

    package static func < (lhs: Number, rhs: Number) -> Bool {
        if case .integer(let a) = lhs.storage, case .integer(let b) = rhs.storage { return a < b }
        let (lhs, rhs) = (lhs.parts, rhs.parts)
        if lhs.negative != rhs.negative { return lhs.negative }
        let ascending = compareMagnitude(lhs, rhs)
        return lhs.negative ? ascending > 0 : ascending < 0
    }

    /// -1, 0 or 1 as |lhs| is below, equal to or above |rhs|.
    private static func compareMagnitude(_ lhs: Parts, _ rhs: Parts) -> Int {
        if lhs.digits.isEmpty || rhs.digits.isEmpty {
            return lhs.digits.isEmpty ? (rhs.digits.isEmpty ? 0 : -1) : 1
        }
        let lhsMagnitude = lhs.exponent + lhs.digits.count
        let rhsMagnitude = rhs.exponent + rhs.digits.count
        if lhsMagnitude != rhsMagnitude { return lhsMagnitude < rhsMagnitude ? -1 : 1 }
        for index in 0..<max(lhs.digits.count, rhs.digits.count) {
            let a = index < lhs.digits.count ? lhs.digits[index] : 0
            let b = index < rhs.digits.count ? rhs.digits[index] : 0
            if a != b { return a < b ? -1 : 1 }
        }
        return 0
    }

    /// The exact sum.
    /// - Throws: ``TableError`` when the result needs more than 38 digits or is out of range.
    package func adding(_ other: Number) throws(TableError) -> Number {
        if case .integer(let a) = storage, case .integer(let b) = other.storage { return Number(a + b) }
        if other.isZero { return self }
        if isZero { return other }
        let (lhs, rhs) = (parts, other.parts)
        let exponent = min(lhs.exponent, rhs.exponent)
        let a = Self.aligned(lhs, to: exponent)
        let b = Self.aligned(rhs, to: exponent)
        if lhs.negative == rhs.negative {
            return try Number(validating: lhs.negative, Self.add(a, b), exponent)
        }
        let order = Self.compareDigits(a, b)
        if order == 0 { return Number(0) }
        let (larger, smaller, sign) = order > 0 ? (a, b, lhs.negative) : (b, a, rhs.negative)
        return try Number(validating: sign, Self.subtract(larger, smaller), exponent)
    }

    /// The exact difference.
    /// - Throws: ``TableError`` when the result needs more than 38 digits or is out of range.
    package func subtracting(_ other: Number) throws(TableError) -> Number {
        try adding(other.negated)
    }

    /// The number with its sign flipped.
    package var negated: Number {
        switch storage {
        case .integer(let value): Number(-value)
        case .decimal(let negative, let digits, let exponent): Number(normalizing: !negative, digits, exponent)
        }
    }

    private static func aligned(_ number: Parts, to target: Int) -> [UInt8] {
        number.digits + [UInt8](repeating: 0, count: number.exponent - target)
    }

    private static func compareDigits(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return 0
    }

    private static func add(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: max(a.count, b.count) + 1)
        var carry: UInt8 = 0
        var i = a.count - 1
        var j = b.count - 1
        var k = result.count - 1
        while k >= 0 {
            let sum = (i >= 0 ? a[i] : 0) + (j >= 0 ? b[j] : 0) + carry
            result[k] = sum % 10
            carry = sum / 10
            i -= 1
            j -= 1
            k -= 1
        }
        return result
    }

    private static func subtract(_ larger: [UInt8], _ smaller: [UInt8]) -> [UInt8] {
        var result = larger
        var borrow: Int = 0
        var j = smaller.count - 1
        for i in stride(from: larger.count - 1, through: 0, by: -1) {
            var value = Int(larger[i]) - borrow - (j >= 0 ? Int(smaller[j]) : 0)
            borrow = 0
            if value < 0 {
                value += 10
                borrow = 1
            }
            result[i] = UInt8(value)
            j -= 1
        }
        return result
    }

    /// The approximate number of bytes DynamoDB counts for this number: one for every two
    /// significant digits, and one more.
    var storageSize: Int {
        switch storage {
        case .integer(let value):
            var significand = Self.withoutTrailingZeros(value.magnitude).significand
            var count = 0
            while significand > 0 {
                count += 1
                significand /= 10
            }
            return (count + 1) / 2 + 1
        case .decimal(_, let digits, _):
            return (digits.count + 1) / 2 + 1
        }
    }

    /// The value as an `Int`, when it is an integer that fits in 18 digits.
    fileprivate var integer: Int? {
        if case .integer(let value) = storage { return value }
        return nil
    }
}

extension Int {
    /// The integer value of a number, when it is an integer of at most 18 digits.
    package init?(exactly number: Number) {
        guard let value = number.integer else { return nil }
        self = value
    }
}
