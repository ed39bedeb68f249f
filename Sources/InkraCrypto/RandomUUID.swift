/// Random (version 4) UUIDs in their usual text form, in lower case as Cognito writes `jti`: an
/// idempotency attempt's id, DynamoDB's `ClientRequestToken`, a development token's ids.
package enum RandomUUID {
    /// A new random UUID from the system's generator: `e621e1f8-c36c-495a-93fc-0c247a3e6e5f`.
    package static func string() -> String {
        var generator = SystemRandomNumberGenerator()
        return string(using: &generator)
    }

    /// A new UUID from `generator` (a seeded one makes the same UUIDs again).
    package static func string(using generator: inout some RandomNumberGenerator) -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // the RFC 4122 variant
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
