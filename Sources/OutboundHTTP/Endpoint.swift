import HTTPText

/// Where a request goes: scheme, host and port, the key of the connection pool.
struct Endpoint: Hashable, Sendable, CustomStringConvertible {
    /// Whether the connection is TLS (`https`).
    var secure: Bool
    /// The host name or IP address, without brackets.
    var host: String
    /// The port, the scheme's default when the URL names none.
    var port: Int

    /// The endpoint of an absolute `http` or `https` URL.
    /// - Throws: ``OutboundHTTPError/Code/invalidURL`` for any other URL.
    init(_ url: HTTPURL) throws(OutboundHTTPError) {
        switch url.scheme {
        case "http": secure = false
        case "https": secure = true
        default:
            throw OutboundHTTPError(.invalidURL, "\(url.absoluteString) is not an http or https URL")
        }
        host = url.host
        port = url.port ?? (secure ? 443 : 80)
        guard (1...65535).contains(port) else {
            throw OutboundHTTPError(.invalidURL, "\(url.absoluteString) has port \(port), outside 1–65535")
        }
    }

    /// Whether the host is an IP address literal, which TLS does not send as a server name.
    var hostIsAddress: Bool {
        host.utf8.contains(UInt8(ascii: ":"))
            || (!host.isEmpty && host.utf8.allSatisfy { $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) })
    }

    /// The `Host` header: the port only when it is not the scheme's default; IPv6 in brackets.
    var hostHeader: String { HTTPURL.hostHeader(host: host, port: port, https: secure) }

    var description: String { "\(secure ? "https" : "http")://\(hostHeader)" }

    /// The request target of a URL: its encoded path (`/` when empty) and query.
    static func target(of url: HTTPURL) -> String {
        let target = url.path.isEmpty ? "/" : url.path
        guard let query = url.query else { return target }
        return "\(target)?\(query)"
    }
}
