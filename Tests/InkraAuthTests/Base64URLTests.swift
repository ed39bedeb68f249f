import Foundation
import HTTPText
import Testing

@testable import InkraAuth

@Suite("base64url in tokens")
struct Base64URLTests {
    /// Foundation's base64, turned into unpadded base64url: the oracle.
    static func reference(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().map { character -> String in
            switch character {
            case "+": "-"
            case "/": "_"
            case "=": ""
            default: String(character)
            }
        }.joined()
    }

    @Test("Every length from 0 to 300 bytes encodes as Foundation does and decodes back")
    func roundTrips() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...300 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Base64.encode(bytes, url: true)
            #expect(encoded == Self.reference(bytes))
            #expect(CompactToken.decode(Array(encoded.utf8)) == bytes)
            // A token's parts are substrings; a collection without contiguous storage decodes too.
            #expect(CompactToken.decode(Substring("x.\(encoded).y").utf8.dropFirst(2).dropLast(2)) == bytes)
            #expect(CompactToken.decode(encoded.utf8.lazy.map { $0 }) == bytes)
        }
    }

    @Test(
        "Padding, the standard alphabet, a dangling character and non-zero unused bits are refused",
        arguments: ["QQ==", "a+b/", "QUJD=", "QUJDR", "QR", "QUJ", "QU$D", "QU\u{E9}", "QUJD\u{0}AAA"])
    func refused(text: String) {
        #expect(CompactToken.decode(Array(text.utf8)) == nil)
    }

    @Test("The canonical spellings decode")
    func canonical() {
        #expect(CompactToken.decode(Array("QQ".utf8)) == Array("A".utf8))
        #expect(CompactToken.decode(Array("QUI".utf8)) == Array("AB".utf8))
        #expect(CompactToken.decode(Array("QUE".utf8)) == Array("AA".utf8))
        #expect(CompactToken.decode(Array("_-8".utf8)) == [0xFF, 0xEF])
    }
}
