#if canImport(Glibc)
    import Glibc
    private let systemRead = Glibc.read
#elseif canImport(Musl)
    import Musl
    private let systemRead = Musl.read
#elseif canImport(Darwin)
    import Darwin
    private let systemRead = Darwin.read
#endif

/// Reads a whole file, for the JSON documents the shipped modules take from files (a limits file,
/// a JWKS file), with POSIX calls and no Foundation.
package enum FileBytes {
    /// The bytes of the file at `path`.
    /// - Throws: ``FileReadError`` with the system's reason (`No such file or directory`).
    package static func read(atPath path: String) throws(FileReadError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileReadError(path: path, errno: errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileReadError(path: path, errno: errno)
            }
            bytes.append(contentsOf: chunk[..<count])
        }
    }
}

/// A file that could not be read: its path and the system's reason.
package struct FileReadError: Error, CustomStringConvertible {
    package let path: String
    package let reason: String

    init(path: String, errno: Int32) {
        self.path = path
        reason = String(cString: strerror(errno))
    }

    package var description: String { "\(path): \(reason)" }
}
