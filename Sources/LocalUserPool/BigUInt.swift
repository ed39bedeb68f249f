import Foundation

/// A non-negative integer of any size, just enough for SRP-6a: comparison, addition, subtraction,
/// multiplication, remainder and modular exponentiation, with big-endian byte and hex forms.
///
/// Plain schoolbook arithmetic over 32-bit limbs (least significant first) and Knuth's long
/// division: clear rather than fast. A 3072-bit modular exponentiation with a 256-bit exponent
/// takes milliseconds, which is all a local sign-in needs. Not constant-time: emulator use only.
struct BigUInt: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Limbs, least significant first, with no trailing zero limbs (zero is `[]`).
    private(set) var limbs: [UInt32]

    /// Zero.
    static let zero = BigUInt(limbs: [])

    init(_ value: UInt64) {
        self.init(limbs: [UInt32(truncatingIfNeeded: value), UInt32(truncatingIfNeeded: value >> 32)])
    }

    init(limbs: [UInt32]) {
        self.limbs = limbs
        normalize()
    }

    /// The number whose big-endian bytes these are.
    init(bytes: some Collection<UInt8>) {
        var limbs: [UInt32] = []
        limbs.reserveCapacity(bytes.count / 4 + 1)
        var limb: UInt32 = 0
        var shift: UInt32 = 0
        for byte in bytes.reversed() {
            limb |= UInt32(byte) << shift
            shift += 8
            if shift == 32 {
                limbs.append(limb)
                limb = 0
                shift = 0
            }
        }
        if shift > 0 { limbs.append(limb) }
        self.init(limbs: limbs)
    }

    /// The number a hex string spells (either case; an odd length is fine); `nil` for any other
    /// character or an empty string.
    init?(hex: some StringProtocol) {
        guard !hex.isEmpty else { return nil }
        var nibbles: [UInt8] = []
        nibbles.reserveCapacity(hex.utf8.count)
        for byte in hex.utf8 {
            // Byte by byte: only ASCII hex digits, never a full-width form.
            guard let nibble = Character(Unicode.Scalar(byte)).hexDigitValue else { return nil }
            nibbles.append(UInt8(nibble))
        }
        if nibbles.count % 2 == 1 { nibbles.insert(0, at: 0) }
        let bytes = stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
        self.init(bytes: bytes)
    }

    private mutating func normalize() {
        while let last = limbs.last, last == 0 { limbs.removeLast() }
    }

    var isZero: Bool { limbs.isEmpty }

    /// The minimal big-endian bytes (`[]` for zero).
    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(limbs.count * 4)
        for limb in limbs.reversed() {
            for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: limb >> shift)) }
        }
        return Array(bytes.drop { $0 == 0 })
    }

    /// Lower-case hex without leading zeros ("0" for zero), as Python's `'%x'` writes it.
    var hex: String {
        let bytes = self.bytes
        guard let first = bytes.first else { return "0" }
        // The first byte without a leading zero, as Python's `'%x'` writes the number.
        return String(first, radix: 16)
            + bytes.dropFirst().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    var description: String { hex }

    static func < (lhs: BigUInt, rhs: BigUInt) -> Bool {
        if lhs.limbs.count != rhs.limbs.count { return lhs.limbs.count < rhs.limbs.count }
        for index in stride(from: lhs.limbs.count - 1, through: 0, by: -1) where lhs.limbs[index] != rhs.limbs[index] {
            return lhs.limbs[index] < rhs.limbs[index]
        }
        return false
    }

    static func + (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        var result = [UInt32](repeating: 0, count: max(lhs.limbs.count, rhs.limbs.count) + 1)
        var carry: UInt64 = 0
        for index in 0..<(result.count - 1) {
            let sum =
                UInt64(index < lhs.limbs.count ? lhs.limbs[index] : 0)
                + UInt64(index < rhs.limbs.count ? rhs.limbs[index] : 0) + carry
            result[index] = UInt32(truncatingIfNeeded: sum)
            carry = sum >> 32
        }
        result[result.count - 1] = UInt32(carry)
        return BigUInt(limbs: result)
    }

    /// `lhs - rhs`; `lhs` must not be smaller than `rhs`.
    static func - (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        precondition(lhs >= rhs, "BigUInt subtraction would be negative")
        var result = lhs.limbs
        var borrow: Int64 = 0
        for index in 0..<result.count {
            var difference = Int64(result[index]) - Int64(index < rhs.limbs.count ? rhs.limbs[index] : 0) - borrow
            if difference < 0 {
                difference += 1 << 32
                borrow = 1
            } else {
                borrow = 0
            }
            result[index] = UInt32(difference)
        }
        return BigUInt(limbs: result)
    }

    static func * (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        guard !lhs.isZero, !rhs.isZero else { return .zero }
        var result = [UInt32](repeating: 0, count: lhs.limbs.count + rhs.limbs.count)
        for (i, left) in lhs.limbs.enumerated() {
            var carry: UInt64 = 0
            for (j, right) in rhs.limbs.enumerated() {
                let product = UInt64(left) * UInt64(right) + UInt64(result[i + j]) + carry
                result[i + j] = UInt32(truncatingIfNeeded: product)
                carry = product >> 32
            }
            result[i + rhs.limbs.count] = UInt32(carry)
        }
        return BigUInt(limbs: result)
    }

    /// The remainder of `lhs / rhs`; `rhs` must not be zero.
    static func % (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        lhs.quotientAndRemainder(dividingBy: rhs).remainder
    }

    /// Knuth's algorithm D (The Art of Computer Programming, vol. 2, 4.3.1) on 32-bit limbs.
    func quotientAndRemainder(dividingBy divisor: BigUInt) -> (quotient: BigUInt, remainder: BigUInt) {
        precondition(!divisor.isZero, "BigUInt division by zero")
        if self < divisor { return (.zero, self) }
        if divisor.limbs.count == 1 { return divided(by: divisor.limbs[0]) }
        // Normalize so the divisor's top limb has its high bit set.
        let shift = UInt32(divisor.limbs.last!.leadingZeroBitCount)
        let v = divisor.shiftedLeft(shift).limbs
        var u = shiftedLeft(shift).limbs
        while u.count < limbs.count + 1 { u.append(0) }
        let n = v.count
        let m = u.count - n - 1
        var quotient = [UInt32](repeating: 0, count: m + 1)
        let base: UInt64 = 1 << 32
        for j in stride(from: m, through: 0, by: -1) {
            let numerator = UInt64(u[j + n]) << 32 | UInt64(u[j + n - 1])
            var qhat = numerator / UInt64(v[n - 1])
            var rhat = numerator % UInt64(v[n - 1])
            while qhat >= base || qhat * UInt64(v[n - 2]) > (rhat << 32 | UInt64(u[j + n - 2])) {
                qhat -= 1
                rhat += UInt64(v[n - 1])
                if rhat >= base { break }
            }
            // Multiply and subtract.
            var borrow: Int64 = 0
            var carry: UInt64 = 0
            for i in 0..<n {
                let product = qhat * UInt64(v[i]) + carry
                carry = product >> 32
                let difference = Int64(u[i + j]) - borrow - Int64(product & 0xFFFF_FFFF)
                u[i + j] = UInt32(truncatingIfNeeded: difference)
                borrow = difference < 0 ? 1 : 0
            }
            let top = Int64(u[j + n]) - borrow - Int64(carry)
            u[j + n] = UInt32(truncatingIfNeeded: top)
            if top < 0 {
                // Add back: qhat was one too large.
                qhat -= 1
                var carryBack: UInt64 = 0
                for i in 0..<n {
                    let sum = UInt64(u[i + j]) + UInt64(v[i]) + carryBack
                    u[i + j] = UInt32(truncatingIfNeeded: sum)
                    carryBack = sum >> 32
                }
                u[j + n] = UInt32(truncatingIfNeeded: UInt64(u[j + n]) + carryBack)
            }
            quotient[j] = UInt32(truncatingIfNeeded: qhat)
        }
        let remainder = BigUInt(limbs: Array(u[0..<n])).shiftedRight(shift)
        return (BigUInt(limbs: quotient), remainder)
    }

    private func divided(by divisor: UInt32) -> (quotient: BigUInt, remainder: BigUInt) {
        var quotient = [UInt32](repeating: 0, count: limbs.count)
        var remainder: UInt64 = 0
        for index in stride(from: limbs.count - 1, through: 0, by: -1) {
            let current = remainder << 32 | UInt64(limbs[index])
            quotient[index] = UInt32(current / UInt64(divisor))
            remainder = current % UInt64(divisor)
        }
        return (BigUInt(limbs: quotient), BigUInt(remainder))
    }

    private func shiftedLeft(_ bits: UInt32) -> BigUInt {
        guard bits > 0, !isZero else { return self }
        var result = [UInt32](repeating: 0, count: limbs.count + 1)
        for (index, limb) in limbs.enumerated() {
            result[index] |= limb << bits
            result[index + 1] = limb >> (32 - bits)
        }
        return BigUInt(limbs: result)
    }

    private func shiftedRight(_ bits: UInt32) -> BigUInt {
        guard bits > 0, !isZero else { return self }
        var result = [UInt32](repeating: 0, count: limbs.count)
        for index in 0..<limbs.count {
            result[index] = limbs[index] >> bits
            if index + 1 < limbs.count { result[index] |= limbs[index + 1] << (32 - bits) }
        }
        return BigUInt(limbs: result)
    }

    /// `self ^ exponent mod modulus` by square-and-multiply; `modulus` must not be zero.
    func power(_ exponent: BigUInt, modulus: BigUInt) -> BigUInt {
        if modulus == BigUInt(1) { return .zero }
        var result = BigUInt(1)
        let base = self % modulus
        for limb in exponent.limbs.reversed() {
            for bit in stride(from: 31, through: 0, by: -1) {
                result = (result * result) % modulus
                if (limb >> UInt32(bit)) & 1 == 1 { result = (result * base) % modulus }
            }
        }
        return result
    }
}
