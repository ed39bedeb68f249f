import SingleTable
import Testing

@Suite("Numbers exact to 38 digits")
struct NumberTests {
    @Test(
        "Parsing and canonical text",
        arguments: [
            ("10", "10"), ("-0.5", "-0.5"), ("12.50", "12.5"), ("007", "7"), ("0", "0"), ("-0", "0"),
            ("1e3", "1000"), ("1.5E+30", "1500000000000000000000000000000"), ("0.000123", "0.000123"),
            ("999999", "999999"), ("1E+125", "1E+125"), ("1e-130", "1E-130"),
        ]
    )
    func canonical(text: String, expected: String) throws {
        #expect(try Number(parsing: text).description == expected)
    }

    @Test(
        "Integers: built without text, summed exactly across the 18-digit fast path",
        arguments: [
            (0, 0), (1000, 1), (-1000, 1), (999_999_999_999_999_999, 1), (-999_999_999_999_999_999, -1),
            (Int.max, 1), (Int.min, -1), (-5, 5),
        ]
    )
    func integers(value: Int, increment: Int) throws {
        #expect(Number(value).description == String(value))
        let sum = try Number(value).adding(Number(increment))
        let expected = try Number(parsing: String(value)).adding(Number(parsing: String(increment)))
        #expect(sum == expected)
        #expect(sum.description == String(Int128(value) + Int128(increment)))
    }

    @Test(
        "One value, one number: the same value equal and hashed alike however it was written or reached",
        arguments: [
            ("1000000000000000000", 1_000_000_000_000_000_000), ("1e18", 1_000_000_000_000_000_000),
            ("999999999999999999", 999_999_999_999_999_999), ("-99999999999999999.9e1", -999_999_999_999_999_999),
            ("1.5e3", 1_500), ("-0.0", 0), ("9223372036854775807", Int.max), ("-9223372036854775808", Int.min),
        ]
    )
    func oneForm(text: String, value: Int) throws {
        let parsed = try Number(parsing: text)
        #expect(parsed == Number(value))
        #expect(Set([parsed, Number(value)]).count == 1)
        #expect(parsed.description == String(value))
        #expect(Int(exactly: parsed) == (value.magnitude < 1_000_000_000_000_000_000 ? value : nil))
        // Reached by arithmetic across the 18-digit boundary, both ways.
        let stepped = try Number(value).adding(Number(1)).subtracting(Number(1))
        #expect(stepped == parsed)
        #expect(Set([stepped, parsed]).count == 1)
    }

    @Test("Integers order with decimals on either side of the 18-digit boundary")
    func orderingAcrossForms() throws {
        let texts = [
            "-1E+20", "-1000000000000000000", "-999999999999999999.5", "-999999999999999999", "-0.5", "0", "0.5",
            "999999999999999999", "999999999999999999.5", "1000000000000000000", "1E+20",
        ]
        let values = try texts.map { try Number(parsing: $0) }
        #expect(values == values.shuffled().sorted())
    }

    @Test("Arithmetic is exact where a Double is not")
    func exact() throws {
        let big = try Number(parsing: "99999999999999999999999999999999999999")
        #expect(try big.subtracting(1).description == "99999999999999999999999999999999999998")
        let sum = try Number(parsing: "0.1").adding(Number(parsing: "0.2"))
        #expect(sum == (try Number(parsing: "0.3")))
        #expect(try Number(parsing: "1.0") == Number(1))
        #expect(try Number(parsing: "-3").adding(Number(5)) == Number(2))
        #expect(
            try Number(parsing: "12345678901234567890.123456789").adding(Number(parsing: "0.876543211")).description
                == "12345678901234567891")
    }

    @Test("Ordering by value")
    func ordering() throws {
        let values = try ["-10", "-1.5", "0", "0.001", "2", "10", "1E+20"].map { try Number(parsing: $0) }
        #expect(values == values.shuffled().sorted())
    }

    @Test(
        "Refusals name the problem",
        arguments: [
            ("123456789012345678901234567890123456789", "more than 38 significant digits"),
            ("1E+126", "Number overflow"),
            ("1E-131", "Number underflow"),
            ("abc", "cannot be converted into a number"),
            ("", "cannot be converted into a number"),
            ("1.2.3", "cannot be converted into a number"),
            ("--1", "cannot be converted into a number"),
        ]
    )
    func refusals(text: String, message: String) {
        #expect {
            try Number(parsing: text)
        } throws: { error in
            (error as? TableError)?.code == .validation && (error as? TableError)?.message.contains(message) == true
        }
    }

    @Test("A sum beyond 38 digits is refused, not rounded")
    func overflowingSum() throws {
        let big = try Number(parsing: "99999999999999999999999999999999999999")
        #expect(throws: TableError.self) { try big.adding(Number(parsing: "0.1")) }
    }
}
