import HTTPText
import InkraHandlers
import InkraJSON
import Testing

@Suite("HTTP header names and values in events")
struct HeaderLookupTests {
    @Test("Header-style lookup ignores ASCII case")
    func caseInsensitive() {
        let object: JSONObject = ["Content-Type": "application/json", "X-Api-Key": "k"]
        #expect(object.value(forCaseInsensitiveKey: "content-type") == "application/json")
        #expect(object.value(forCaseInsensitiveKey: "X-API-KEY") == "k")
        #expect(object.value(forCaseInsensitiveKey: "accept") == nil)
        // Only letters fold: "[" (0x5B) and "{" (0x7B) differ by the same bit as "K" and "k".
        let brackets: JSONObject = ["a[": "square"]
        #expect(brackets.value(forCaseInsensitiveKey: "A{") == nil)
        #expect(brackets.value(forCaseInsensitiveKey: "A[") == "square")
    }

    @Test(
        "Optional whitespace: spaces and tabs at either end go, other whitespace and the middle stay",
        arguments: [
            (" \tBearer abc\t ", "Bearer abc"), ("plain", "plain"), ("", ""), (" \t ", ""),
            ("\nline\n", "\nline\n"), ("a b", "a b"), ("\u{00A0}x ", "\u{00A0}x"), ("é ", "é"),
        ])
    func trimming(text: String, trimmed: String) {
        #expect(String(text.trimmingSpacesAndTabs()) == trimmed)
        #expect(String(text[...].trimmingSpacesAndTabs()) == trimmed, "a Substring trims as its String")
    }
}
