import Foundation
import HTTPText
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `moto_server` started for this test process, on a free loopback port, so `swift test` runs
/// the DynamoDB suites with nothing set up beforehand.
///
/// It runs under a small shell that holds a pipe from this process on its standard input: when
/// this process ends, however it ends (an exit, a crash, SIGKILL), the pipe closes and the shell
/// stops moto_server. What moto_server prints goes to a log file in the temporary folder.
enum MotoServer {
    /// How to get moto_server, for a suite's skip reason.
    static let installHint = "moto_server is not on PATH; pip install 'moto[server]' to run the DynamoDB suites"

    /// How long moto_server may take to answer its first request (importing moto is slow).
    static let startTimeout: Duration = .seconds(60)

    /// Each shell, and the pipe it waits on; held for the life of the process. Appended to by the
    /// starts that `MotoEndpoint.url()` and `quietURL()` run, each once, on a thread of its own.
    private static let running = Mutex<[(shell: Process, lifeline: Pipe)]>([])

    /// `moto_server` from `PATH`, when it is there.
    static func executable(path: String? = ProcessInfo.processInfo.environment["PATH"]) -> URL? {
        for folder in (path ?? "").split(separator: ":") where !folder.isEmpty {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("moto_server")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Starts moto_server and returns its URL once it answers HTTP, or why it could not.
    /// A port taken between choosing and binding it is tried again with another.
    static func start(_ executable: URL) -> Result<HTTPURL, StartFailure> {
        let log = FileManager.default.temporaryDirectory
            .appendingPathComponent(
                "inkra-test-moto-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8)).log")
        var failure = StartFailure("moto_server could not be started (log: \(log.path))")
        for _ in 0..<3 {
            guard let port = freeLoopbackPort() else { return .failure(StartFailure("no free loopback port")) }
            let process = Process()
            let lifeline = Pipe()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", supervisor, "sh", executable.path, String(port), log.path]
            // Only this process may hold the write end: a copy inherited by the shell (or any
            // other child) would keep the lifeline open after this process ends.
            _ = fcntl(lifeline.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
            process.standardInput = lifeline
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do {
                try withNoSignalsBlocked { try process.run() }
            } catch {
                return .failure(StartFailure("cannot run \(executable.path): \(error)"))
            }
            let deadline = ContinuousClock.now + startTimeout
            while process.isRunning, ContinuousClock.now < deadline {
                if answersHTTP(port: port) {
                    running.withLock { $0.append((process, lifeline)) }
                    return .success(HTTPURL(string: "http://127.0.0.1:\(port)")!)
                }
                usleep(100_000)
            }
            try? lifeline.fileHandleForWriting.close()
            if process.isRunning {
                failure = StartFailure("moto_server did not answer on 127.0.0.1:\(port) in 60 s (log: \(log.path))")
            } else {
                failure = StartFailure("moto_server stopped on 127.0.0.1:\(port) (log: \(log.path))")
            }
        }
        return .failure(failure)
    }

    /// The shell around moto_server (`$1` the executable, `$2` the port, `$3` the log): it keeps
    /// its standard input, the lifeline, on descriptor 3 for a waiter that stops moto_server when
    /// the lifeline closes, and ends when moto_server ends.
    private static let supervisor = """
        exec 3<&0
        "$1" -H 127.0.0.1 -p "$2" >>"$3" 2>&1 </dev/null &
        moto=$!
        { read -r _ <&3; kill "$moto" 2>/dev/null; } &
        wait "$moto"
        """

    /// Runs `body` with this thread's signals unblocked. A child inherits the signal mask of the
    /// thread that starts it, and the test runner's threads block nearly every signal: a shell
    /// started from one never sees SIGCHLD (so never reaps moto_server) and moto_server never
    /// sees SIGTERM.
    private static func withNoSignalsBlocked<T>(_ body: () throws -> T) rethrows -> T {
        var none = sigset_t()
        var previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        return try body()
    }

    /// Why moto_server is not there.
    struct StartFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// A loopback port nothing listens on now: bound to port 0, read back, released.
    static func freeLoopbackPort() -> UInt16? {
        let socketDescriptor = socket(AF_INET, streamSocket, 0)
        guard socketDescriptor >= 0 else { return nil }
        defer { close(socketDescriptor) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { return nil }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketDescriptor, $0, &length) }
        }
        guard named == 0 else { return nil }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Whether an HTTP server answers on the loopback port: one connection, one request, and the
    /// first bytes of a status line back within two seconds.
    private static func answersHTTP(port: UInt16) -> Bool {
        let socketDescriptor = socket(AF_INET, streamSocket, 0)
        guard socketDescriptor >= 0 else { return false }
        defer { close(socketDescriptor) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(socketDescriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socketDescriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return false }
        let request = Array("GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard write(socketDescriptor, request, request.count) == request.count else { return false }
        var answer = [UInt8](repeating: 0, count: 5)
        var received = 0
        while received < answer.count {
            let wanted = answer.count - received
            let count = answer.withUnsafeMutableBytes { read(socketDescriptor, $0.baseAddress! + received, wanted) }
            guard count > 0 else { return false }
            received += count
        }
        return answer == Array("HTTP/".utf8)
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    #if canImport(Glibc)
        private static let streamSocket = Int32(SOCK_STREAM.rawValue)
    #else
        private static let streamSocket = SOCK_STREAM
    #endif
}

/// Loopback ports for servers a test starts in another process.
package enum LoopbackPort {
    /// A port nothing listens on now (bound to port 0, read back, released), or `nil`.
    package static func free() -> UInt16? { MotoServer.freeLoopbackPort() }
}

/// A loopback port that refuses connections for as long as this value lives: a socket bound to it
/// that never listens, so no other test's server can be given the port meanwhile (a port merely
/// closed can be, and then answers).
package final class RefusingPort: Sendable {
    /// The port.
    package let port: UInt16
    private let descriptor: Int32

    /// Binds a socket to a free loopback port; `nil` when none could be bound.
    package init?() {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard named else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }
}
