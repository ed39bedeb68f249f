import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One writer per state file: an advisory lock (`fcntl` `F_SETLK`) on `<state>.lock`, taken before
/// the file is read and held while the stack that opened it lives — the whole run of a command.
///
/// A second process that opens the file is refused with a message naming the holder (its pid from
/// `F_GETLK`, and the command line it wrote into the lock file). The kernel releases the lock when
/// its holder dies, `kill -9` included, so a lock left by a dead process never blocks: the lock
/// file may stay, its lock does not. The lock is on a file of its own because the state file
/// itself is replaced by a rename at every save.
///
/// Within one process every stack on a file shares one lock (a count of holders), and the lock
/// file's descriptor stays open for the process's life: closing any descriptor of a file drops
/// all of the process's `fcntl` locks on it, so none is ever closed while held.
package final class StateFileLock: Sendable {
    /// The lock file, `<state>.lock`.
    package let url: URL
    private let path: String

    private struct Held {
        var descriptor: Int32
        var holders: Int
    }

    /// Path → the process's descriptor of its lock file and how many stacks hold it.
    private static let registry = Mutex<[String: Held]>([:])

    private init(url: URL, path: String) {
        self.url = url
        self.path = path
    }

    deinit {
        Self.registry.withLock { held in
            guard var entry = held[path] else { return }
            entry.holders -= 1
            if entry.holders == 0 { Self.unlock(entry.descriptor) }
            held[path] = entry
        }
    }

    /// Takes the lock of a state file for this process.
    /// - Parameters:
    ///   - stateFile: the state file (`--state`).
    ///   - command: what the lock file says holds it; default: this process's command line.
    /// - Throws: ``EmulatorError`` naming the holder when another process holds it, or the file
    ///   when the lock file cannot be opened.
    package static func acquire(for stateFile: URL, command: String = currentCommand()) throws(EmulatorError)
        -> StateFileLock
    {
        let url = stateFile.appendingPathExtension("lock")
        let path = url.standardizedFileURL.path
        try registry.withLock { held throws(EmulatorError) in
            if var entry = held[path], entry.holders > 0 {
                entry.holders += 1
                held[path] = entry
                return
            }
            let descriptor: Int32
            if let entry = held[path] {
                descriptor = entry.descriptor
            } else {
                descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
                guard descriptor >= 0 else {
                    throw EmulatorError(
                        "cannot open the lock file \(path) of the state file \(stateFile.path): "
                            + String(cString: strerror(errno)))
                }
                held[path] = Held(descriptor: descriptor, holders: 0)
            }
            var request = lockRequest(F_WRLCK)
            guard fcntl(descriptor, F_SETLK, &request) == 0 else {
                let reason = errno
                if reason == EACCES || reason == EAGAIN {
                    throw EmulatorError(inUse: stateFile, holder: holder(of: descriptor))
                }
                throw EmulatorError(
                    "cannot lock \(path) for the state file \(stateFile.path): \(String(cString: strerror(reason)))")
            }
            record(command, in: descriptor)
            held[path] = Held(descriptor: descriptor, holders: 1)
        }
        return StateFileLock(url: url, path: path)
    }

    /// This process's command line, for the lock file: the executable's name and its arguments.
    package static func currentCommand() -> String {
        let arguments = CommandLine.arguments
        guard let first = arguments.first else { return "" }
        return ([URL(fileURLWithPath: first).lastPathComponent] + arguments.dropFirst()).joined(separator: " ")
    }

    /// Who holds the lock: the pid `F_GETLK` reports, and the command the lock file names when it
    /// was written by that pid.
    private static func holder(of descriptor: Int32) -> (pid: Int32?, command: String?) {
        var probe = lockRequest(F_WRLCK)
        let pid: Int32? =
            fcntl(descriptor, F_GETLK, &probe) == 0 && probe.l_type != Int16(F_UNLCK) && probe.l_pid > 0
            ? Int32(probe.l_pid) : nil
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return (pid, nil) }
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2, let written = Int32(parts[0]) else { return (pid, nil) }
        // A pid the kernel does not report (another PID namespace) is taken from the file.
        guard let pid else { return (written, parts[1]) }
        return (pid, written == pid ? parts[1] : nil)
    }

    /// Writes `<pid> <command>` into the lock file, for a refused process to name the holder.
    private static func record(_ command: String, in descriptor: Int32) {
        let line = Data("\(getpid()) \(command)\n".utf8)
        guard ftruncate(descriptor, 0) == 0 else { return }
        line.withUnsafeBytes { buffer in _ = pwrite(descriptor, buffer.baseAddress, buffer.count, 0) }
    }

    private static func unlock(_ descriptor: Int32) {
        var request = lockRequest(F_UNLCK)
        _ = fcntl(descriptor, F_SETLK, &request)
    }

    /// A request on the whole file.
    private static func lockRequest(_ type: Int32) -> flock {
        var request = flock()
        request.l_type = Int16(type)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = 0
        request.l_len = 0
        return request
    }
}

extension EmulatorError {
    /// The refusal of a state file another process holds, naming the holder and the ways on.
    init(inUse stateFile: URL, holder: (pid: Int32?, command: String?)) {
        var who = holder.pid.map { "process \($0)" } ?? "another process"
        if let command = holder.command, !command.isEmpty { who += " (\(command))" }
        self.init(
            "state file \(stateFile.path) is in use by \(who): one process at a time keeps a state file. "
                + "Stop that process or pass another --state; to read or change the usage a running "
                + "`serve` keeps, go through its DynamoDB endpoint (--dynamodb-endpoint URL, the address "
                + "its banner prints, e.g. http://127.0.0.1:8000)")
    }
}
