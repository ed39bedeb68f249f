/// Random (version 4) UUIDs in their usual text form, upper-case as Foundation's `uuidString`
/// writes them: an idempotency attempt's id, DynamoDB's `ClientRequestToken`.
package enum RandomUUID {
    /// A new random UUID: `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
    package static func string() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // the RFC 4122 variant
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
