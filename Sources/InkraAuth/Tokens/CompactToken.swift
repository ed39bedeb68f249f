import HTTPText
import InkraJSON

/// A JWT in compact form, split and decoded but not yet verified. The emulator reads an unverified
/// token's claims with it too (whose events to keep in order, which pool issued a token), never
/// to trust them.
package struct CompactToken {
    /// The largest token accepted.
    static let maximumLength = 8 * 1024

    let header: JSONObject
    package let payload: JSONObject
    /// `<header>.<payload>` as sent: what the signature covers.
    let signingInput: [UInt8]
    let signature: [UInt8]

    /// Splits and decodes a token, with or without a `Bearer ` prefix.
    /// - Throws: ``AuthError`` naming what is malformed.
    package init(_ raw: String) throws(AuthError) {
        var text = raw.trimmingSpacesAndTabs()
        if text.utf8.count >= 7, text.prefix(7).caseInsensitiveEquals("bearer ") {
            text = text.dropFirst(7).trimmingSpacesAndTabs()
        }
        guard text.utf8.count <= Self.maximumLength else {
            throw AuthError(.oversized, "token is \(text.utf8.count) bytes; at most \(Self.maximumLength) are accepted")
        }
        let split =
            text.utf8.withContiguousStorageIfAvailable(Self.split)
            ?? Array(text.utf8).withUnsafeBufferPointer(Self.split)
        let parts = try split.get()
        header = try Self.object(parts.header, "header")
        payload = try Self.object(parts.payload, "payload")
        signature = parts.signature
        signingInput = parts.signingInput
    }

    /// A token's three parts, decoded but not parsed.
    private struct Parts {
        var header: [UInt8]
        var payload: [UInt8]
        var signature: [UInt8]
        var signingInput: [UInt8]
    }

    /// Splits the token at its two dots and decodes each part, in one pass over its bytes.
    private static func split(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Parts, AuthError> {
        let dot = UInt8(ascii: ".")
        // One pass finds the dots and the first byte outside base64url (and the part it is in).
        var dots: [Int] = []
        dots.reserveCapacity(2)
        var outside: Int?
        sextets.withUnsafeBufferPointer { table in
            for index in bytes.indices {
                let byte = bytes[index]
                if byte == dot {
                    dots.append(index)
                } else if table[Int(byte)] == 0xFF, outside == nil {
                    outside = dots.count
                }
            }
        }
        guard dots.count == 2 else {
            return .failure(AuthError(.malformed, "token has \(dots.count + 1) parts, not 3"))
        }
        let ranges = [0..<dots[0], (dots[0] + 1)..<dots[1], (dots[1] + 1)..<bytes.count]
        let names = ["header", "payload", "signature"]
        if let empty = ranges.firstIndex(where: \.isEmpty) {
            return .failure(AuthError(.malformed, "token \(names[empty]) is empty"))
        }
        if let outside {
            return .failure(AuthError(.malformed, "token \(names[outside]) has characters outside base64url"))
        }
        var decoded: [[UInt8]] = []
        for (name, range) in zip(names, ranges) {
            guard let part = decode(buffer: UnsafeBufferPointer(rebasing: bytes[range])) else {
                return .failure(AuthError(.malformed, "token \(name) is not base64url"))
            }
            decoded.append(part)
        }
        return .success(
            Parts(
                header: decoded[0], payload: decoded[1], signature: decoded[2],
                signingInput: Array(bytes[..<dots[1]])))
    }

    private static func object(_ bytes: [UInt8], _ name: String) throws(AuthError) -> JSONObject {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maximumDepth: 16, rejectsDuplicateKeys: true)
        } catch {
            throw AuthError(.malformed, "token \(name) is not JSON: \(error)")
        }
        guard let object = value.object else { throw AuthError(.malformed, "token \(name) is not a JSON object") }
        return object
    }

    /// Each byte's base64url value; 0xFF for bytes outside the alphabet.
    private static let sextets = Base64.decodingTable(Base64.urlAlphabet)

    /// Decodes unpadded base64url. Non-canonical input (a length that leaves 6 bits, or unused
    /// trailing bits that are not zero) is refused, so one token has exactly one spelling.
    static func decode(_ part: some Collection<UInt8>) -> [UInt8]? {
        if let decoded = part.withContiguousStorageIfAvailable({ decode(buffer: $0) }) { return decoded }
        return Array(part).withUnsafeBufferPointer { decode(buffer: $0) }
    }

    /// Four characters to three bytes at a time, through a lookup table (every token's three
    /// parts are decoded on every request).
    private static func decode(buffer input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let tail = input.count % 4
        guard tail != 1 else { return nil }
        let whole = input.count / 4
        let length = whole * 3 + (tail == 0 ? 0 : tail - 1)
        var valid = true
        let output = sextets.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: length) { out, written in
                written = 0
                var position = 0
                func next() -> UInt32 {
                    let value = table[Int(input[position])]
                    position += 1
                    if value == 0xFF { valid = false }
                    return UInt32(value)
                }
                for _ in 0..<whole {
                    let group = next() << 18 | next() << 12 | next() << 6 | next()
                    guard valid else { return }
                    out[written] = UInt8(truncatingIfNeeded: group >> 16)
                    out[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                    out[written + 2] = UInt8(truncatingIfNeeded: group)
                    written += 3
                }
                switch tail {
                case 2:
                    let group = next() << 6 | next()
                    guard valid, group & 0xF == 0 else {
                        valid = false
                        return
                    }
                    out[written] = UInt8(truncatingIfNeeded: group >> 4)
                    written += 1
                case 3:
                    let group = next() << 12 | next() << 6 | next()
                    guard valid, group & 0x3 == 0 else {
                        valid = false
                        return
                    }
                    out[written] = UInt8(truncatingIfNeeded: group >> 10)
                    out[written + 1] = UInt8(truncatingIfNeeded: group >> 2)
                    written += 2
                default:
                    break
                }
            }
        }
        return valid ? output : nil
    }
}
