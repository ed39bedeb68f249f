/// Base64 with the standard alphabet and `=` padding (RFC 4648, section 4): API Gateway's
/// `isBase64Encoded` bodies, DynamoDB's binary attributes, the idempotency seal; and, to write,
/// base64url without padding (section 5), a token's parts and a JWK's numbers.
package enum Base64 {
    /// `bytes` in base64, padded; with `url`, in base64url without padding.
    package static func encode(_ bytes: some Collection<UInt8>, url: Bool = false) -> String {
        let alphabet = url ? urlAlphabet : alphabet
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            if second != nil {
                output.append(alphabet[Int(group >> 6 & 0x3F)])
            } else if !url {
                output.append(UInt8(ascii: "="))
            }
            if third != nil {
                output.append(alphabet[Int(group & 0x3F)])
            } else if !url {
                output.append(UInt8(ascii: "="))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes `text` encodes, or `nil` when it is not base64: a character outside the
    /// alphabet (unless `ignoringUnknownCharacters`, which skips them as API Gateway's line breaks
    /// need), a length that is not a multiple of 4 once skipped, or `=` anywhere but the end.
    package static func decode(_ text: String, ignoringUnknownCharacters: Bool = false) -> [UInt8]? {
        var sextets: [UInt8] = []
        sextets.reserveCapacity(text.utf8.count)
        var padding = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            let value = values[Int(byte)]
            if value == 0xFF {
                if ignoringUnknownCharacters { continue }
                return nil
            }
            guard padding == 0 else { return nil }
            sextets.append(value)
        }
        guard padding <= 2, (sextets.count + padding) % 4 == 0, sextets.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(sextets.count * 3 / 4)
        var index = 0
        while index < sextets.count {
            let count = min(4, sextets.count - index)
            var group: UInt32 = 0
            for offset in 0..<4 { group = group << 6 | UInt32(offset < count ? sextets[index + offset] : 0) }
            output.append(UInt8(group >> 16 & 0xFF))
            if count > 2 { output.append(UInt8(group >> 8 & 0xFF)) }
            if count > 3 { output.append(UInt8(group & 0xFF)) }
            index += 4
        }
        return output
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// base64url's alphabet: `-` and `_` in place of `+` and `/`.
    package static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let values = decodingTable(alphabet)

    /// Each byte's value in `alphabet` (64 characters); 0xFF for bytes outside it. Base64url's
    /// decoder in InkraAuth builds its table with it too.
    package static func decodingTable(_ alphabet: [UInt8]) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }
}
