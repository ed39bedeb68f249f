import HTTPText

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A blocking HTTP/1.1 client connection with keep-alive, just enough for the Lambda Runtime API
/// on loopback: one request at a time, `Content-Length` or chunked bodies.
///
/// Why the runtime keeps this beside `OutboundHTTPClient`, the stack's one client for everything
/// else (issue #38, item 3): `RuntimeClient` over `OutboundHTTPClient` was built and measured
/// against this one by alternating release builds (BENCHMARKS.md, "One HTTP client, measured").
/// It cost about 1 ms more from start to the first `/next` (1.9 → 2.9 ms at best), about 60 µs
/// more per invocation through the real `bootstrap`, and 2.7 MB more resident memory: NIO's event
/// loops start before the first poll, and each call hops between them and Swift's threads. It
/// also read framing differently from what RuntimeLoopTests check: NIO's parser took
/// `Transfer-Encoding: chunked, gzip` as read-until-close, named no field in its errors, and
/// refused the chunked answer (with a chunk extension) that `chunkedAnswer` reads whole.
final class HTTPConnection {
    /// A response.
    struct Response {
        var status: Int
        /// Header names lower-cased.
        var headers: [String: String]
        var body: [UInt8]
    }

    private let host: String
    private let port: UInt16
    private var descriptor: Int32 = -1
    private var buffer: [UInt8] = []
    private var bufferStart = 0

    /// A connection to `host:port`, opened on first use.
    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    deinit { close() }

    /// Closes the socket; the next request opens a new one.
    func close() {
        if descriptor >= 0 {
            _ = systemClose(descriptor)
            descriptor = -1
        }
        buffer.removeAll(keepingCapacity: true)
        bufferStart = 0
    }

    /// Sends one request and reads its response.
    /// - Throws: ``RuntimeAPIError`` when the connection fails or the response is malformed.
    func send(method: String, path: String, headers: [(String, String)] = [], body: [UInt8] = []) throws -> Response {
        if descriptor < 0 { try connect() }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nUser-Agent: inkra-lambda-runtime\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if method != "GET" || !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        do {
            try writeAll(Array(head.utf8) + body)
            return try readResponse()
        } catch {
            close()
            throw error
        }
    }

    private func connect() throws {
        let socketDescriptor = try connectedSocket(host: host, port: String(port), datagram: false)
        var one: Int32 = 1
        setsockopt(socketDescriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        descriptor = socketDescriptor
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                systemSend(descriptor, raw.baseAddress! + offset, bytes.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw RuntimeAPIError(.connection, "write failed: \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }

    private func fill() throws {
        if bufferStart > 0 && bufferStart == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            bufferStart = 0
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return
            }
            if count == 0 { throw RuntimeAPIError(.connection, "the Runtime API closed the connection") }
            if errno == EINTR { continue }
            throw RuntimeAPIError(.connection, "read failed: \(String(cString: strerror(errno)))")
        }
    }

    private func readLine() throws -> String {
        while true {
            if let index = buffer[bufferStart...].firstIndex(of: 0x0A) {
                var end = index
                if end > bufferStart && buffer[end - 1] == 0x0D { end -= 1 }
                let line = String(decoding: buffer[bufferStart..<end], as: UTF8.self)
                bufferStart = index + 1
                return line
            }
            guard buffer.count - bufferStart < 64 * 1024 else {
                throw RuntimeAPIError(.protocolError, "header line too long")
            }
            try fill()
        }
    }

    private func readBytes(_ count: Int) throws -> [UInt8] {
        while buffer.count - bufferStart < count { try fill() }
        let bytes = Array(buffer[bufferStart..<(bufferStart + count)])
        bufferStart += count
        return bytes
    }

    private func readResponse() throws -> Response {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw RuntimeAPIError(.protocolError, "malformed status line \"\(statusLine)\"")
        }
        var headers: [String: String] = [:]
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else {
                throw RuntimeAPIError(.protocolError, "malformed header \"\(line)\"")
            }
            let name = line[..<colon].lowercased()
            let value = String(line[line.index(after: colon)...].trimmingSpacesAndTabs())
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        var body: [UInt8] = []
        if let codings = headers["transfer-encoding"] {
            // Chunked must be the last coding (RFC 9112 §6.1); the Runtime API sends no other.
            let last = codings.split(separator: ",").last.map { $0.trimmingSpacesAndTabs().lowercased() }
            guard last == "chunked" else {
                throw RuntimeAPIError(.protocolError, "unsupported Transfer-Encoding \"\(codings)\"")
            }
            while true {
                let sizeLine = try readLine()
                let digits = sizeLine.split(separator: ";", omittingEmptySubsequences: false)[0].trimmingSpacesAndTabs()
                guard !digits.isEmpty, digits.utf8.count <= 8, digits.utf8.allSatisfy(Self.isHexDigit),
                    let size = Int(digits, radix: 16)
                else { throw RuntimeAPIError(.protocolError, "malformed chunk size \"\(sizeLine)\"") }
                if size == 0 {
                    while try !readLine().isEmpty {}
                    break
                }
                body += try readBytes(size)
                let rest = try readLine()
                guard rest.isEmpty else {
                    throw RuntimeAPIError(
                        .protocolError,
                        "malformed chunk: \(size) bytes followed by \"\(rest.prefix(32))\" instead of a line end")
                }
            }
        } else if let length = headers["content-length"] {
            guard !length.isEmpty, length.utf8.count <= 10, length.utf8.allSatisfy(Self.isDigit),
                let count = Int(length)
            else { throw RuntimeAPIError(.protocolError, "malformed Content-Length \"\(length)\"") }
            body = try readBytes(count)
        }
        if headers["connection"]?.lowercased() == "close" { close() }
        return Response(status: status, headers: headers, body: body)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
    }
}

/// A socket connected to `host:port`: the first of the addresses `getaddrinfo` gives that accepts,
/// a stream (TCP) or a datagram (UDP) socket.
/// - Throws: ``RuntimeAPIError`` (``RuntimeAPIError/Code/connection``) naming the host when it
///   cannot be resolved, and the last error when no address accepts.
func connectedSocket(host: String, port: String, datagram: Bool) throws(RuntimeAPIError) -> Int32 {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if canImport(Glibc)
        hints.ai_socktype = Int32((datagram ? SOCK_DGRAM : SOCK_STREAM).rawValue)
    #else
        hints.ai_socktype = datagram ? SOCK_DGRAM : SOCK_STREAM
    #endif
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, port, &hints, &list)
    guard status == 0, let first = list else {
        throw RuntimeAPIError(.connection, "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
    }
    defer { freeaddrinfo(list) }
    var lastError = "no address"
    var entry: UnsafeMutablePointer<addrinfo>? = first
    while let address = entry {
        let socketDescriptor = socket(
            address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
        if socketDescriptor >= 0 {
            if systemConnect(socketDescriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 {
                return socketDescriptor
            }
            lastError = String(cString: strerror(errno))
            _ = systemClose(socketDescriptor)
        }
        entry = address.pointee.ai_next
    }
    throw RuntimeAPIError(.connection, "cannot connect to \(host):\(port): \(lastError)")
}

func systemClose(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
        Glibc.close(descriptor)
    #elseif canImport(Darwin)
        Darwin.close(descriptor)
    #endif
}

func systemConnect(_ descriptor: Int32, _ address: UnsafeMutablePointer<sockaddr>!, _ length: socklen_t)
    -> Int32
{
    #if canImport(Glibc)
        Glibc.connect(descriptor, address, length)
    #elseif canImport(Darwin)
        Darwin.connect(descriptor, address, length)
    #endif
}

/// `send` that never raises SIGPIPE when the peer has gone: Linux asks per call (`MSG_NOSIGNAL`),
/// Darwin per socket (`SO_NOSIGPIPE`).
func systemSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
    #elseif canImport(Darwin)
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        return Darwin.send(descriptor, bytes, count, 0)
    #endif
}
