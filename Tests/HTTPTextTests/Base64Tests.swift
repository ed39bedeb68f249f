import Foundation
import HTTPText
import Testing

@Suite("Base64: RFC 4648's standard alphabet, as Foundation writes and reads it")
struct Base64Tests {
    @Test("Encodes every length as Foundation does, and decodes its own and Foundation's text back")
    func roundTrips() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<100 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Base64.encode(bytes)
            #expect(text == Data(bytes).base64EncodedString(), "\(length) bytes")
            #expect(Base64.decode(text) == bytes, "\(length) bytes")
        }
        #expect(Base64.encode(Array("any carnal pleas".utf8)) == "YW55IGNhcm5hbCBwbGVhcw==")
    }

    @Test(
        "Refuses what is not base64, as Foundation does",
        arguments: ["Zm9v!", "Zm9", "Zg=", "Z=g=", "Zm9v\n", "=Zm9"]
    )
    func refuses(text: String) {
        #expect(Base64.decode(text) == nil, "\(text)")
        #expect(Data(base64Encoded: text) == nil, "Foundation agrees on \(text)")
    }

    /// Foundation reads these (a third `=`, a character after the padding); nothing the package
    /// reads is written so, and the stricter reading refuses them.
    @Test(
        "Refuses padding that is too long or not at the end, where Foundation is lenient",
        arguments: ["Zg===", "Zm9vYg=a"])
    func refusesBadPadding(text: String) {
        #expect(Base64.decode(text) == nil, "\(text)")
    }

    @Test("Skips what is outside the alphabet when asked, as API Gateway's line breaks need")
    func skipsUnknown() {
        let text = "YW55IGNh\r\ncm5hbCBw\nbGVhcw=="
        #expect(Base64.decode(text) == nil)
        #expect(Base64.decode(text, ignoringUnknownCharacters: true) == Array("any carnal pleas".utf8))
        #expect(
            Base64.decode(text, ignoringUnknownCharacters: true)
                == Data(base64Encoded: text, options: .ignoreUnknownCharacters).map(Array.init))
    }
}
