import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback server that answers exactly one HTTP request with a fixed response, then closes:
/// for Runtime API answers the local Runtime API never gives (no deadline, a malformed one).
final class OneAnswerServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var received = ""

    /// Starts listening on 127.0.0.1 and answers the first request on a Dispatch thread.
    init(response: String) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(descriptor, raw, length) == 0 && listen(descriptor, 1) == 0
                    && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        DispatchQueue.global().async { [self] in
            defer { finished.signal() }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var request: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !String(decoding: request, as: UTF8.self).contains("\r\n\r\n") {
                let count = read(connection, &buffer, buffer.count)
                guard count > 0 else { break }
                request += buffer[0..<count]
            }
            lock.withLock { received = String(decoding: request, as: UTF8.self) }
            let bytes = Array(response.utf8)
            _ = bytes.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
        }
    }

    /// The request line and headers it received, once it has answered.
    func request() -> String {
        finished.wait()
        close(listener)
        return lock.withLock { received }
    }
}
