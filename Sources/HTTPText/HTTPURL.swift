/// An absolute URL with a host, `scheme://[user@]host[:port][/path][?query][#fragment]`, read as
/// RFC 3986 writes it: what the shipped modules need of a URL (an endpoint, a model's base URL, a
/// user pool's JWKS), without Foundation.
///
/// The path and query are kept percent-encoded, as written. A URL with a space or a control
/// character, no `//`, an empty host or a port that is not digits is refused (`nil`).
package struct HTTPURL: Hashable, Sendable, CustomStringConvertible {
    /// The text it was read from.
    package let absoluteString: String
    /// The scheme, lower-cased: `https`.
    package let scheme: String
    /// The host, lower-cased; an IPv6 address without its brackets.
    package let host: String
    /// The port when the URL names one.
    package let port: Int?
    /// The path, percent-encoded as written; empty when there is none.
    package let path: String
    /// The query without its `?`, percent-encoded as written; `nil` when there is none.
    package let query: String?

    package init?(string: String) {
        let bytes = Array(string.utf8)
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else { return nil }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            Self.isLetter(bytes[0]),
            bytes[..<colon].allSatisfy({ Self.isLetter($0) || Self.isDigit($0) || "+-.".utf8.contains($0) }),
            bytes[(colon + 1)...].starts(with: "//".utf8)
        else { return nil }
        let authorityStart = colon + 3
        let rest = bytes[authorityStart...]
        let authorityEnd = rest.firstIndex(where: { "/?#".utf8.contains($0) }) ?? bytes.endIndex
        var authority = bytes[authorityStart..<authorityEnd]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
        var hostBytes: ArraySlice<UInt8>
        var portBytes: ArraySlice<UInt8>?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            hostBytes = authority[(authority.startIndex + 1)..<close]
            let after = authority[(close + 1)...]
            if let first = after.first {
                guard first == UInt8(ascii: ":") else { return nil }
                portBytes = after.dropFirst()
            }
        } else if let portColon = authority.firstIndex(of: UInt8(ascii: ":")) {
            hostBytes = authority[..<portColon]
            portBytes = authority[(portColon + 1)...]
        } else {
            hostBytes = authority
        }
        guard !hostBytes.isEmpty else { return nil }
        if let portBytes, !portBytes.isEmpty {
            guard portBytes.count <= 5, portBytes.allSatisfy(Self.isDigit),
                let number = Int(String(decoding: portBytes, as: UTF8.self))
            else { return nil }
            port = number
        } else {
            port = nil
        }
        let fragmentStart = bytes[authorityEnd...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        let beforeFragment = bytes[authorityEnd..<fragmentStart]
        if let mark = beforeFragment.firstIndex(of: UInt8(ascii: "?")) {
            path = String(decoding: beforeFragment[..<mark], as: UTF8.self)
            query = String(decoding: beforeFragment[(mark + 1)...], as: UTF8.self)
        } else {
            path = String(decoding: beforeFragment, as: UTF8.self)
            query = nil
        }
        absoluteString = string
        scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        host = String(decoding: hostBytes, as: UTF8.self).lowercased()
    }

    /// This URL with `/` and `component` after its path (and no query or fragment).
    package func appendingPathComponent(_ component: String) -> HTTPURL {
        let base = absoluteString.prefix { $0 != "?" && $0 != "#" }
        let separator = base.hasSuffix("/") ? "" : "/"
        return HTTPURL(string: base + separator + component) ?? self
    }

    /// The `Host` field a request to this URL sends (and SigV4 signs).
    package var hostHeader: String { Self.hostHeader(host: host, port: port, https: scheme == "https") }

    /// The `Host` field for `host` and `port`: an IPv6 address in brackets, the port only when it
    /// is not the scheme's default (`https://dynamodb.us-east-1.amazonaws.com:443` is
    /// `dynamodb.us-east-1.amazonaws.com`).
    package static func hostHeader(host: String, port: Int?, https: Bool) -> String {
        let name = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        guard let port, port != (https ? 443 : 80) else { return name }
        return "\(name):\(port)"
    }

    package var description: String { absoluteString }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte | 0x20) }
    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}
