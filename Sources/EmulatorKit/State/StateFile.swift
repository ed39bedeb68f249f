import DynamoDBTable
import Foundation
import InkraJSON
import LocalUserPool
import SingleTable

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file `--state` keeps the in-memory table in between runs.
///
/// Writes are atomic: the new contents go to a temporary file in the same folder, which is
/// flushed to disk (`fsync`) and then renamed over the old file, so a crash leaves either the old
/// state or the new one, never a torn file. Between saves, every write to the table and every
/// change of `serve`'s user pool is in the ``StateJournal`` beside it before it is answered, so
/// `kill -9` loses nothing acknowledged. A file that is not an emulator state file is refused
/// with a message and never overwritten.
package struct StateFile: Sendable {
    /// The format tag at the top of every state file.
    package static let format = "inkra-emulator-state"
    /// The format version this emulator writes.
    package static let version = 1

    /// The file.
    package let url: URL
    /// The table the file belongs to.
    package let tableName: String

    /// A state file for a table.
    package init(url: URL, tableName: String) {
        self.url = url
        self.tableName = tableName
    }

    /// The local user pool kept in the file, with the changes its journal holds; `nil` when neither
    /// has one.
    /// - Throws: ``EmulatorError`` when the section or the journal is there but corrupt.
    package func loadUserPool() throws(EmulatorError) -> UserPoolSnapshot? {
        try StateJournal.replayUserPool(journalURL, onto: try loadSavedUserPool())
    }

    /// The pool section of the file alone.
    private func loadSavedUserPool() throws(EmulatorError) -> UserPoolSnapshot? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        do {
            return try Self.userPool(in: try JSONParser.parse(Array(data)))
        } catch {
            throw EmulatorError(
                "state file \(url.path) has a corrupt userPool section (\(error)); "
                    + "refusing to use or overwrite it (move it away, or pass another --state)")
        }
    }

    /// The `userPool` section of a state file's JSON, `nil` when there is none.
    private static func userPool(in contents: JSONValue) throws(PoolStateError) -> UserPoolSnapshot? {
        guard let section = contents["userPool"], section != .null else { return nil }
        do {
            return try UserPoolSnapshot(json: section)
        } catch {
            throw PoolStateError(path: ".userPool\(error.path)", reason: error.reason)
        }
    }

    /// The items in the file; none when the file does not exist yet.
    /// - Throws: ``EmulatorError`` when the file exists but is unreadable, corrupt, of another
    ///   format or version, or of another table.
    package func load() throws(EmulatorError) -> [Item] {
        let keyNames = ["PK", "SK"]
        return try StateJournal.replay(journalURL, onto: try loadSnapshot(), keyNames: keyNames)
    }

    /// The write-ahead log beside the file.
    package var journalURL: URL { url.appendingPathExtension("journal") }

    /// Opens the write-ahead log for the table to record its writes in.
    /// - Throws: ``EmulatorError`` naming the file.
    package func openJournal() throws(EmulatorError) -> StateJournal {
        try StateJournal(url: journalURL)
    }

    private func loadSnapshot() throws(EmulatorError) -> [Item] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        let data = try Replayer.contents(of: url) { "state file \(url.path) cannot be read: \($0)" }
        let refuse = "; refusing to use or overwrite it (move it away, or pass another --state)"
        guard let contents = try? JSONParser.parse(Array(data)),
            let format = contents["format"]?.string, let version = contents["version"]?.int,
            let table = contents["table"]?.string
        else {
            throw EmulatorError(
                "state file \(url.path) is not an inkra-emulator state file (not the expected JSON)\(refuse)")
        }
        guard format == Self.format else {
            throw EmulatorError("state file \(url.path) has format \"\(format)\", not \"\(Self.format)\"\(refuse)")
        }
        guard version == Self.version else {
            throw EmulatorError(
                "state file \(url.path) is version \(version); this emulator reads version \(Self.version)\(refuse)")
        }
        guard table == tableName else {
            throw EmulatorError("state file \(url.path) holds table \"\(table)\", not \"\(tableName)\"\(refuse)")
        }
        do {
            _ = try Self.userPool(in: contents)
            return try Self.items(in: contents)
        } catch {
            throw EmulatorError("state file \(url.path) is corrupt (\(error))\(refuse)")
        }
    }

    /// The `items` of a state file, in DynamoDB's JSON (``Wire``).
    private static func items(in contents: JSONValue) throws -> [Item] {
        guard let items = contents["items"]?.array else {
            throw EmulatorError("at top level: no \"items\" list")
        }
        var result: [Item] = []
        for (index, item) in items.enumerated() {
            guard let object = item.object else { throw EmulatorError("at .items[\(index)]: not an object") }
            do throws(TableError) {
                result.append(try Wire.item(object))
            } catch {
                throw EmulatorError("at .items[\(index)]: \(error.message)")
            }
        }
        return result
    }

    /// Writes the table's items atomically and durably, then empties its journal (unless writes
    /// came in while the snapshot was taken: the journal keeps them).
    /// - Throws: ``EmulatorError`` naming the file.
    /// The pool is read after the journal's count, so a change recorded meanwhile keeps the journal.
    package func save(
        _ table: InMemoryTable, journal: StateJournal?, userPool: @autoclosure () -> UserPoolSnapshot? = nil
    ) throws(EmulatorError) {
        let seen = journal?.records ?? 0
        try save(table.snapshot(), userPool: userPool())
        try journal?.truncate(ifStill: seen)
    }

    /// Replaces the file's contents with these items, atomically and durably; the user pool
    /// section is `userPool`, or the one already in the file when `nil`.
    /// - Throws: ``EmulatorError`` naming the file.
    package func save(_ items: [Item], userPool: UserPoolSnapshot? = nil) throws(EmulatorError) {
        var userPool = userPool
        if userPool == nil { userPool = try loadUserPool() }
        // Members in sorted order, items in DynamoDB's JSON (``Wire``); `userPool` is `serve`'s local
        // user pool (its users, their groups and the tokens it issued, hashed), absent when there is none.
        var contents: JSONObject = [
            "format": .string(Self.format), "items": .array(items.map(Wire.item)), "table": .string(tableName),
        ]
        if let userPool { contents["userPool"] = userPool.json }
        contents["version"] = .number(Self.version)
        let data = Data(JSONValue.object(contents).jsonBytes)
        try Self.writeAtomically(data, to: url)
    }

    /// Writes through a flushed temporary file renamed into place, then flushes the folder.
    static func writeAtomically(_ data: Data, to url: URL) throws(EmulatorError) {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else {
            throw EmulatorError("cannot write \(temporary.path): \(String(cString: strerror(errno)))")
        }
        var failure = writeAll(data, to: descriptor)
        if failure == nil && fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if let failure {
            unlink(temporary.path)
            throw EmulatorError("cannot write \(temporary.path): \(failure)")
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw EmulatorError("cannot replace \(url.path): \(reason)")
        }
        let folder = open(directory.path, O_RDONLY)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// Writes every byte, retrying interrupted writes; the reason when it cannot.
    static func writeAll(_ data: Data, to descriptor: Int32) -> String? {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += written
            }
            return nil
        }
    }
}
