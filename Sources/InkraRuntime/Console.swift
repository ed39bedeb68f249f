#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard output and error, written with one `write(2)` per line so lines from concurrent
/// invocations never interleave (Lambda sends both streams to CloudWatch Logs).
enum Console {
    /// Writes a line to standard output.
    static func out(_ line: String) { write(line, to: 1) }

    /// Writes a line to standard error.
    static func error(_ line: String) { write(line, to: 2) }

    /// The process's environment variables (`environ`): a name's first value when it is repeated,
    /// as `getenv` reads it.
    static var environment: [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                if variables[name] == nil { variables[name] = String(text[text.index(after: equals)...]) }
            }
            entry += 1
        }
        return variables
    }

    /// Ends the process.
    static func exit(_ status: Int32) -> Never {
        #if canImport(Glibc)
            Glibc.exit(status)
        #elseif canImport(Darwin)
            Darwin.exit(status)
        #endif
    }

    private static func write(_ line: String, to descriptor: Int32) {
        var bytes = Array(line.utf8)
        if bytes.last != 0x0A { bytes.append(0x0A) }
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                #if canImport(Glibc)
                    let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #elseif canImport(Darwin)
                    let written = Darwin.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
