import Testing

@testable import LocalUserPool

@Suite("BigUInt: the unsigned integers SRP computes with, against Python's")
struct BigUIntTests {
    @Test("hex and bytes round-trip, with leading zeros dropped as Python's '%x' drops them")
    func forms() throws {
        #expect(BigUInt(hex: "0")?.hex == "0")
        #expect(BigUInt(hex: "00ff")?.hex == "ff")
        #expect(BigUInt(hex: "1000000000000000000000000")?.bytes == [1] + [UInt8](repeating: 0, count: 12))
        #expect(BigUInt(hex: "xyz") == nil)
        #expect(BigUInt(hex: "") == nil)
        #expect(BigUInt(bytes: [0, 0, 1, 2]).hex == "102")
    }

    @Test("modular powers match Python's pow()", arguments: KnownValues.powers.indices)
    func powers(index: Int) throws {
        let (base, exponent, modulus, expected) = KnownValues.powers[index]
        let b = try #require(BigUInt(hex: base))
        let e = try #require(BigUInt(hex: exponent))
        let m = try #require(BigUInt(hex: modulus))
        let result = b.power(e, modulus: m)
        #expect(result.hex == expected)
    }

    @Test("products, quotients and remainders match Python's", arguments: KnownValues.divisions.indices)
    func divisions(index: Int) throws {
        let (dividend, divisor, quotient, remainder, product) = KnownValues.divisions[index]
        let a = try #require(BigUInt(hex: dividend))
        let b = try #require(BigUInt(hex: divisor))
        let result = a.quotientAndRemainder(dividingBy: b)
        #expect(result.quotient.hex == quotient)
        #expect(result.remainder.hex == remainder)
        #expect((a * b).hex == product)
        #expect((result.quotient * b + result.remainder) == a)
    }

    @Test("addition carries and subtraction borrows across limbs")
    func carries() throws {
        let allOnes = try #require(BigUInt(hex: "ffffffffffffffffffffffff"))
        let sum = allOnes + BigUInt(1)
        #expect(sum.hex == "1000000000000000000000000")
        #expect((sum - BigUInt(1)) == allOnes)
        #expect(BigUInt(5) < BigUInt(hex: "100000000")!)
    }
}
