import InkraJSON
import Testing

/// What RFC 8259 refuses, the parser refuses, naming the fault and where: every event, body and
/// DynamoDB answer goes through it, so a lenient parse would let malformed input through to a
/// handler.
@Suite("JSON parser: what it refuses")
struct JSONParserRefusalTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var bytes: [UInt8]
        var message: String
        var offset: Int
        var testDescription: String { name }

        init(_ name: String, _ text: String, _ message: String, at offset: Int) {
            self.init(name, Array(text.utf8), message, at: offset)
        }

        init(_ name: String, _ bytes: [UInt8], _ message: String, at offset: Int) {
            self.name = name
            self.bytes = bytes
            self.message = message
            self.offset = offset
        }
    }

    static let refused: [Case] = [
        Case("a leading zero", "01", "unexpected '1' after the JSON value", at: 1),
        Case("a leading zero in an array", "[-012]", "expected ',' or ']' in array, found '1'", at: 3),
        Case("a bare minus", "-", "invalid number", at: 1),
        Case("a fraction without digits", "1.", "invalid number", at: 2),
        Case("an exponent without digits", "1e+", "invalid number", at: 3),
        Case("a leading plus", "+1", "unexpected '+'", at: 0),
        Case("a lone high surrogate", #""\uD83D""#, "unpaired surrogate in \\u escape", at: 7),
        Case("a lone low surrogate", #""\uDE00""#, "unpaired surrogate in \\u escape", at: 7),
        Case("a high surrogate before a non-surrogate", #""\uD83D\u0041""#, "unpaired surrogate in \\u escape", at: 13),
        Case("a raw newline in a string", "\"a\nb\"", "unescaped control character in string", at: 2),
        Case("a raw tab in a string", "\"a\tb\"", "unescaped control character in string", at: 2),
        Case("a raw NUL in a string", [0x22, 0x61, 0x00, 0x22], "unescaped control character in string", at: 2),
        Case("a lone continuation byte", [0x22, 0x80, 0x22], "invalid UTF-8 in string", at: 1),
        Case("an overlong encoding of '/'", [0x22, 0xC0, 0xAF, 0x22], "invalid UTF-8 in string", at: 1),
        Case("an encoded surrogate", [0x22, 0xED, 0xA0, 0x80, 0x22], "invalid UTF-8 in string", at: 1),
        Case("a truncated sequence", [0x22, 0xE2, 0x82, 0x22], "invalid UTF-8 in string", at: 1),
        Case("an invalid escape", #""\x41""#, "invalid escape '\\x'", at: 3),
        Case("a truncated \\u escape", #""\u12"#, "truncated \\u escape", at: 3),
        Case("a bad hex digit", #""\u12G4""#, "invalid hex digit in \\u escape", at: 5),
        Case("an unterminated string", #""abc"#, "unterminated string", at: 4),
        Case("a trailing comma in an object", #"{"a":1,}"#, "expected a string key, found '}'", at: 7),
        Case("a trailing comma in an array", "[1,]", "unexpected ']'", at: 3),
        Case("a single-quoted string", "'a'", "unexpected '''", at: 0),
        Case("an unquoted key", "{a:1}", "expected a string key, found 'a'", at: 1),
        Case("two values", "1 2", "unexpected '2' after the JSON value", at: 2),
        Case("NaN", "NaN", "unexpected 'N'", at: 0),
        Case("a misspelt literal", "tru", "unexpected end of input", at: 0),
        Case("nothing", "", "unexpected end of input", at: 0),
        Case("only whitespace", " \n", "unexpected end of input", at: 2),
    ]

    /// The parser's refusal as "message at offset", or what it parsed.
    static func outcome(_ bytes: [UInt8], maximumDepth: Int = 512, rejectsDuplicateKeys: Bool = false) -> String {
        do {
            let value = try JSONParser.parse(
                bytes, maximumDepth: maximumDepth, rejectsDuplicateKeys: rejectsDuplicateKeys)
            return "parsed \(value.jsonString)"
        } catch {
            return "\(error.message) at \(error.offset)"
        }
    }

    @Test("Each malformed text is refused with its fault and offset", arguments: refused)
    func refuses(_ malformed: Case) {
        #expect(Self.outcome(malformed.bytes) == "\(malformed.message) at \(malformed.offset)")
    }

    @Test("Nesting deeper than the limit is refused, at the limit it parses")
    func depth() throws {
        let limit = 8
        let atLimit = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(try JSONParser.parse(Array(atLimit.utf8), maximumDepth: limit) != .null)
        let deeper = "[" + atLimit + "]"
        #expect(Self.outcome(Array(deeper.utf8), maximumDepth: limit) == "nesting deeper than 8 levels at \(limit)")
        let hostile = String(repeating: "{\"a\":", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(hostile) }
    }

    @Test("A repeated key is refused when asked, else the last value wins")
    func duplicateKeys() throws {
        let text = Array(#"{"a":1,"a":2}"#.utf8)
        #expect(Self.outcome(text, rejectsDuplicateKeys: true) == "duplicate key at 12")
        #expect(try JSONParser.parse(text)["a"] == 2)
    }

    @Test("A refusal never echoes a key: the caller's text stays out of the messages that are logged")
    func keysAreNotEchoed() {
        let key = #"x\nINKRA_RECORDING r 1/1 {}"#
        let duplicate = Array(#"{"\#(key)":1,"\#(key)":2}"#.utf8)
        let noColon = Array(#"{"\#(key)" 1}"#.utf8)
        for text in [duplicate, noColon] {
            let message = Self.outcome(text, rejectsDuplicateKeys: true)
            #expect(!message.contains("INKRA_RECORDING"), "\(message)")
        }
        #expect(Self.outcome(noColon) == "expected ':' after a key at 31")
    }

    @Test("What is valid next to each refusal parses: a surrogate pair, escapes, zero, exponents")
    func acceptsTheValidNeighbours() throws {
        #expect(try JSONParser.parse(#""\uD83D\uDE00""#) == "😀")
        #expect(try JSONParser.parse(#""a\nb\t\u0000""#) == "a\nb\t\u{0}")
        #expect(try JSONParser.parse(Array("\"é😀\"".utf8)) == "é😀")
        #expect(try JSONParser.parse("[0, -0, 0.5, 1e3, 1E-2, -1.5e+2]").array?.count == 6)
        #expect(try JSONParser.parse(" {\"a\" : [ true , false , null ] } ")["a"]?.array?.count == 3)
    }
}
