import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP socket (IPv4).
func tcpSocket() -> Int32 {
    #if canImport(Glibc)
        Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #elseif canImport(Darwin)
        Darwin.socket(AF_INET, SOCK_STREAM, 0)
    #endif
}

/// `connect(2)`, which Foundation's `connect` names would shadow.
func systemConnect(_ socket: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    #if canImport(Glibc)
        Glibc.connect(socket, address, length)
    #elseif canImport(Darwin)
        Darwin.connect(socket, address, length)
    #endif
}

/// A child process started with `posix_spawn`, so that its resource usage (peak resident memory)
/// can be read with `wait4` when it ends — which Foundation's `Process` does not expose.
struct Child {
    let pid: pid_t

    /// Starts `path` with arguments and environment; standard output and error go to /dev/null
    /// unless `keepOutput`.
    static func spawn(_ path: String, _ arguments: [String], environment: [String: String], keepOutput: Bool = false)
        throws -> Child
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if !keepOutput {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard status == 0 else { throw BenchmarkError("cannot start \(path): \(String(cString: strerror(status)))") }
        return Child(pid: pid)
    }

    /// The peak resident memory so far (`VmHWM`), read while the child runs. `wait4`'s figure
    /// cannot be used for a child of this process: `posix_spawn` shares this process's memory
    /// until `exec`, and the kernel carries that high-water mark over into the child's.
    func peakResidentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }

    /// Sends a signal.
    func signal(_ number: Int32) { kill(pid, number) }

    /// Stops a server child: SIGTERM, then SIGKILL if it is still running after `grace` seconds.
    func stop(grace: Double = 10) {
        signal(SIGTERM)
        let deadline = ContinuousClock.now + .milliseconds(Int(grace * 1000))
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            usleep(10_000)
        }
        signal(SIGKILL)
        wait()
    }

    /// The user and system CPU time the child has used so far, in seconds, over all its threads
    /// (fields 14 and 15 of `/proc/PID/stat`, in clock ticks).
    func cpuSeconds() -> Double? {
        guard let fields = statFields(), fields.count > 12, let user = Double(fields[11]),
            let system = Double(fields[12])
        else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Whether the child has ended (and not been waited for yet).
    var hasEnded: Bool { statFields()?.first.map { $0 == "Z" || $0 == "X" } ?? true }

    /// The fields of `/proc/PID/stat` from the third (the state) on: the command before them is in
    /// parentheses and may hold spaces.
    private func statFields() -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let commandEnd = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: commandEnd)...].split(separator: " ")
    }

    /// Waits for the child to end; its exit status, or minus the signal that ended it.
    @discardableResult
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -(status & 0x7f)
    }
}

/// A loopback listener that reports when the first HTTP request line arrives (cold start).
final class FirstRequestListener: @unchecked Sendable {
    let port: Int
    private let socket: Int32

    init() throws {
        let socket = tcpSocket()
        self.socket = socket
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var one: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(socket, 16) == 0 else {
            port = 0
            throw BenchmarkError("cannot listen on loopback")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            _ = $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Blocks until a connection sends a request line starting with `prefix`; returns when it did.
    func waitForRequest(startingWith prefix: String) -> ContinuousClock.Instant {
        let connection = accept(socket, nil, nil)
        defer { close(connection) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.starts(with: Array(prefix.utf8)) && received.count < prefix.utf8.count {
            let count = read(connection, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return ContinuousClock.now
    }

    deinit { close(socket) }
}

/// The floor for a request/response exchange: one byte each way over a loopback TCP connection,
/// between two threads, timed per round trip.
enum LoopbackPingPong {
    static func roundTrip(count: Int) throws -> Double {
        let listener = try FirstRequestListener()
        guard let client = Loopback.connect(port: listener.port) else {
            throw BenchmarkError("cannot connect on loopback")
        }
        let server = listener.acceptOne()
        var one: Int32 = 1
        for descriptor in [client, server] {
            setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        let echo = Thread {
            var byte: UInt8 = 0
            while read(server, &byte, 1) == 1 { _ = write(server, &byte, 1) }
        }
        echo.start()
        var byte: UInt8 = 1
        for _ in 0..<1_000 {
            _ = write(client, &byte, 1)
            _ = read(client, &byte, 1)
        }
        let started = ContinuousClock.now
        for _ in 0..<count {
            _ = write(client, &byte, 1)
            _ = read(client, &byte, 1)
        }
        let perRoundTrip = Harness.nanoseconds(ContinuousClock.now - started) / Double(count)
        close(client)
        return perRoundTrip
    }
}

extension FirstRequestListener {
    fileprivate func acceptOne() -> Int32 { accept(socket, nil, nil) }
}

/// Loopback TCP connections.
enum Loopback {
    /// A connected socket to a loopback port, or `nil` when nothing accepts there.
    static func connect(port: Int) -> Int32? {
        let client = tcpSocket()
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemConnect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(client)
            return nil
        }
        return client
    }

    /// A port nothing listens on now (found by binding port 0, then closed again).
    static func freePort() throws -> Int { try FirstRequestListener().port }

    /// Waits until `child` accepts connections on `port`, for up to `seconds`.
    static func waitForListener(_ child: Child, port: Int, seconds: Double) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if let socket = connect(port: port) {
                close(socket)
                return
            }
            if child.hasEnded { throw BenchmarkError("the server on port \(port) ended before it listened") }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw BenchmarkError("nothing listened on 127.0.0.1:\(port) within \(Int(seconds)) s")
    }
}

/// A benchmark that cannot run, with the reason.
struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
