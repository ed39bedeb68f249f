#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sends segment documents to the X-Ray daemon over UDP, as Lambda offers it to a function with
/// active tracing at `AWS_XRAY_DAEMON_ADDRESS`.
///
/// Each datagram is the header line `{"format": "json", "version": 1}`, a newline and one segment
/// document, as "Sending segment documents to the X-Ray daemon" describes
/// (https://docs.aws.amazon.com/xray/latest/devguide/xray-api-sendingdata.html#xray-api-daemon).
/// A send never blocks nor fails the invocation: a datagram the socket cannot take at once is
/// dropped and counted.
package final class XRayDaemonClient: @unchecked Sendable {
    // @unchecked: the descriptor is set once in init and only read afterwards; `send` on a UDP
    // socket is safe from any thread.
    private let descriptor: Int32
    /// The daemon's address, `host:port`.
    package let address: String

    /// The header line of every datagram.
    static let header: [UInt8] = Array(#"{"format": "json", "version": 1}"#.utf8) + [UInt8(ascii: "\n")]

    /// A client of the daemon at `address`: `host:port`, or the SDKs' `udp:host:port tcp:host:port`
    /// form, of which the UDP address is used.
    /// - Throws: ``RuntimeAPIError`` (``RuntimeAPIError/Code/configuration``) naming the address when
    ///   it is malformed or cannot be resolved.
    package init(address: String) throws(RuntimeAPIError) {
        guard let (host, port) = Self.udpAddress(in: address) else {
            throw RuntimeAPIError(
                .configuration,
                "AWS_XRAY_DAEMON_ADDRESS is \"\(address)\", not host:port or udp:host:port tcp:host:port")
        }
        do {
            descriptor = try connectedSocket(host: host, port: port, datagram: true)
        } catch {
            throw RuntimeAPIError(.configuration, "AWS_XRAY_DAEMON_ADDRESS \(address): \(error.message)")
        }
        self.address = "\(host):\(port)"
    }

    deinit { _ = systemClose(descriptor) }

    /// Sends one segment document; returns whether the socket took it.
    @discardableResult
    package func send(_ document: [UInt8]) -> Bool {
        let datagram = Self.header + document
        let sent = datagram.withUnsafeBytes { raw in
            // Never waits: a datagram the socket buffer cannot take now is dropped.
            #if canImport(Glibc)
                Glibc.send(descriptor, raw.baseAddress!, raw.count, Int32(MSG_DONTWAIT))
            #elseif canImport(Darwin)
                Darwin.send(descriptor, raw.baseAddress!, raw.count, MSG_DONTWAIT)
            #endif
        }
        return sent == datagram.count
    }

    /// The UDP `host` and `port` in an `AWS_XRAY_DAEMON_ADDRESS` value.
    package static func udpAddress(in value: String) -> (host: String, port: String)? {
        let forms = value.split(separator: " ")
        let chosen: Substring
        if forms.count == 1 {
            chosen = forms[0].hasPrefix("udp:") ? forms[0].dropFirst(4) : forms[0]
        } else {
            guard let udp = forms.first(where: { $0.hasPrefix("udp:") }) else { return nil }
            chosen = udp.dropFirst(4)
        }
        guard let colon = chosen.lastIndex(of: ":") else { return nil }
        let host = String(chosen[..<colon])
        let port = String(chosen[chosen.index(after: colon)...])
        guard !host.isEmpty, let number = Int(port), (1...65535).contains(number) else { return nil }
        return (host, port)
    }
}
