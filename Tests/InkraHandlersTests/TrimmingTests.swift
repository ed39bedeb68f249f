import Testing

@testable import InkraHandlers

@Suite("Trimming a topic")
struct TrimmingTests {
    /// What trimming means: leading and trailing Unicode whitespace scalars removed.
    static func reference(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }

    @Test("Every ASCII character at either end is trimmed exactly when Unicode calls it whitespace")
    func asciiEnds() {
        for byte in UInt8(0)..<0x80 {
            let edge = String(UnicodeScalar(byte))
            for text in [edge + "mid" + edge, edge + "mid", "mid" + edge, edge] {
                #expect(text.trimmingWhitespace() == Self.reference(text), "byte \(byte)")
            }
        }
    }

    @Test(
        "Non-ASCII ends: Unicode spaces are trimmed, letters and combining marks kept",
        arguments: [
            ("\u{00A0}nbsp\u{3000}", "nbsp"), ("\u{2003}em space, then é", "em space, then é"),
            ("cafe\u{0301}", "cafe\u{0301}"), ("x\u{85}", "x"), ("\u{85}\u{2028}", ""), ("日本語 ", "日本語"),
            ("  padded\t\n", "padded"), ("plain", "plain"), ("", ""), ("👋🏽 hi 👋🏽", "👋🏽 hi 👋🏽"),
        ])
    func nonASCIIEnds(text: String, trimmed: String) {
        #expect(text.trimmingWhitespace() == trimmed)
        #expect(Self.reference(text) == trimmed)
    }
}
