import InkraJSON
import Testing

@Suite("JSON objects and their text")
struct JSONObjectTests {
    @Test("Members keep their first place; a value replaced stays there; a removed key is gone", arguments: [3, 40])
    func order(count: Int) {
        var object = JSONObject()
        for index in 0..<count { object["k\(index)"] = .number(String(index)) }
        object["k1"] = "replaced"
        object["k0"] = nil
        #expect(object.count == count - 1)
        #expect(object.keys == (1..<count).map { "k\($0)" })
        #expect(object["k1"] == "replaced")
        #expect(object["k0"] == nil)
        #expect(object["k\(count - 1)"] == .number(String(count - 1)))
        object["k0"] = true
        #expect(object.keys.last == "k0")
        #expect(object.pairs.map(\.key) == object.keys)
    }

    @Test("Equal whatever the order, with equal hashes; different values or keys differ", arguments: [4, 30])
    func equality(count: Int) {
        let pairs = (0..<count).map { ("key\($0)", JSONValue.number(String($0))) }
        let forward = JSONObject(pairs)
        let backward = JSONObject(pairs.reversed())
        #expect(forward == backward)
        #expect(forward.hashValue == backward.hashValue)
        var changed = backward
        changed["key0"] = "zero"
        #expect(forward != changed)
        var renamed = forward
        renamed["key0"] = nil
        renamed["other"] = .number("0")
        #expect(forward != renamed)
        #expect(Set([forward, backward, changed]).count == 2)
    }

    @Test(
        "Keys compare as Swift's strings do, small objects and indexed ones alike: the Kelvin sign is K",
        arguments: [1, 30])
    func canonicalKeys(members: Int) {
        var object = JSONObject((0..<members - 1).map { ("k\($0)", JSONValue.number("\($0)")) })
        object["\u{212A}"] = .number("-1")
        #expect(object["K"] == .number("-1"))
        object["K"] = .number("-2")
        #expect(object.keys.count == members)
        #expect(object["\u{212A}"] == .number("-2"))
    }

    @Test("A repeated key in the pairs keeps its last value at its first place")
    func repeatedKey() {
        let object = JSONObject([("a", .number("1")), ("b", .number("2")), ("a", .number("3"))])
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == .number("3"))
    }

    @Test(
        "Strings: quotes, backslashes and control characters escaped; U+2028/U+2029 as \\u; other text as UTF-8",
        arguments: [
            ("plain", #""plain""#),
            ("say \"hi\"\\", #""say \"hi\"\\""#),
            ("a\nb\tc\r\u{08}\u{0C}", #""a\nb\tc\r\b\f""#),
            ("\u{01}\u{1F}", #""\u0001\u001f""#),
            ("line\u{2028}para\u{2029}", #""line\u2028para\u2029""#),
            ("€ … ‰ — ✓", "\"€ … ‰ — ✓\""),
            ("café 🎙️ 日本", "\"café 🎙️ 日本\""),
            // Escapes at the edges of the runs copied whole, and next to each other.
            ("", "\"\""),
            ("\"", #""\"""#),
            ("\u{2028}", #""\u2028""#),
            ("end\u{2029}", #""end\u2029""#),
            ("\n\"\\x\u{00}", #""\n\"\\x\u0000""#),
            ("…\u{2028}€", "\"…\\u2028€\""),
            (
                String(repeating: "a", count: 600) + "\"" + String(repeating: "b", count: 600),
                "\"" + String(repeating: "a", count: 600) + "\\\"" + String(repeating: "b", count: 600) + "\""
            ),
        ]
    )
    func strings(text: String, expected: String) throws {
        let value = JSONValue.string(text)
        #expect(value.jsonString == expected)
        #expect(value.jsonBytes == Array(expected.utf8))
        #expect(try JSONParser.parse(Array(value.jsonString.utf8)) == value)
    }

    @Test("Compact and pretty text keep member order and round-trip")
    func documents() throws {
        let value: JSONValue = [
            "z": [1, 2, ["nested": nil]], "a": ["flag": true, "empty": [:], "list": []], "n": .number("-1.5e3"),
        ]
        #expect(value.jsonString == #"{"z":[1,2,{"nested":null}],"a":{"flag":true,"empty":{},"list":[]},"n":-1.5e3}"#)
        #expect(
            value.prettyJSONString == """
                {
                  "z": [
                    1,
                    2,
                    {
                      "nested": null
                    }
                  ],
                  "a": {
                    "flag": true,
                    "empty": {},
                    "list": []
                  },
                  "n": -1.5e3
                }
                """)
        #expect(try JSONParser.parse(Array(value.prettyJSONString.utf8)) == value)
    }
}
