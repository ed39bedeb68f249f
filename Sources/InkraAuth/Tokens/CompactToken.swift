import Foundation
import InkraJSON

/// A JWT in compact form, split and decoded but not yet verified.
struct CompactToken {
    /// The largest token accepted.
    static let maximumLength = 8 * 1024

    let header: JSONObject
    let payload: JSONObject
    /// `<header>.<payload>` as sent: what the signature covers.
    let signingInput: [UInt8]
    let signature: [UInt8]

    /// Splits and decodes a token, with or without a `Bearer ` prefix.
    /// - Throws: ``AuthError`` naming what is malformed.
    init(_ raw: String) throws(AuthError) {
        var text = raw.trimmingCharacters(in: .whitespaces)
        if text.count >= 7, text.prefix(7).lowercased() == "bearer " {
            text = String(text.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        guard text.utf8.count <= Self.maximumLength else {
            throw AuthError(.oversized, "token is \(text.utf8.count) bytes; at most \(Self.maximumLength) are accepted")
        }
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw AuthError(.malformed, "token has \(parts.count) parts, not 3") }
        for (name, part) in zip(["header", "payload", "signature"], parts) {
            guard !part.isEmpty else { throw AuthError(.malformed, "token \(name) is empty") }
            guard part.allSatisfy(Self.isBase64URL) else {
                throw AuthError(.malformed, "token \(name) has characters outside base64url")
            }
        }
        header = try Self.object(parts[0], "header")
        payload = try Self.object(parts[1], "payload")
        guard let signature = Self.decode(parts[2]) else {
            throw AuthError(.malformed, "token signature is not base64url")
        }
        self.signature = signature
        signingInput = Array(text.utf8.prefix(parts[0].count + 1 + parts[1].count))
    }

    private static func object(_ part: Substring.UTF8View.SubSequence, _ name: String) throws(AuthError) -> JSONObject {
        guard let bytes = decode(part) else { throw AuthError(.malformed, "token \(name) is not base64url") }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maximumDepth: 16, rejectsDuplicateKeys: true)
        } catch {
            throw AuthError(.malformed, "token \(name) is not JSON: \(error)")
        }
        guard let object = value.object else { throw AuthError(.malformed, "token \(name) is not a JSON object") }
        return object
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }

    /// Decodes unpadded base64url.
    static func decode(_ part: some Collection<UInt8>) -> [UInt8]? {
        guard part.count % 4 != 1 else { return nil }
        var text = String(decoding: part, as: UTF8.self)
            .replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text).map(Array.init)
    }

    /// Encodes bytes as unpadded base64url.
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
