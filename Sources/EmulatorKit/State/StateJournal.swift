import DynamoDBTable
import Foundation
import InkraJSON
import LocalUserPool
import SingleTable
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The write-ahead log beside a state file (`<state>.journal`): one JSON line per table operation,
/// holding the after-image of every item it changed, and one per change of `serve`'s local user
/// pool, holding the after-image of every user and token it changed; each appended and flushed to
/// disk (`fsync`) before the change takes effect — so a write or a sign-up answered before a
/// `kill -9` is on disk.
///
/// Loading folds the journal into the snapshot in order (after-images, so applying one twice is
/// harmless); a last line cut short by a crash was never acknowledged and is dropped. A clean
/// save writes the snapshot atomically, then empties the journal unless writes came in meanwhile.
package final class StateJournal: TableJournal, UserPoolJournal {
    private struct State {
        var descriptor: Int32
        var records = 0
    }

    /// The journal file.
    package let url: URL
    private let state: Mutex<State>

    /// Opens (creating) the journal for appending.
    /// - Throws: ``EmulatorError`` naming the file.
    init(url: URL) throws(EmulatorError) {
        self.url = url
        let descriptor = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw EmulatorError("cannot open the state journal \(url.path): \(String(cString: strerror(errno)))")
        }
        state = Mutex(State(descriptor: descriptor))
    }

    deinit {
        _ = state.withLock { close($0.descriptor) }
    }

    package func record(_ changes: [TableChange]) throws {
        try append(Data(Self.line(changes).jsonBytes))
    }

    /// Records a change of the local user pool: `{"userPool":{…}}`.
    package func record(_ change: UserPoolChange) throws {
        try append(Data(JSONValue.object(["userPool": change.json]).jsonBytes))
    }

    /// Appends one line and flushes it to disk.
    private func append(_ entry: Data) throws(EmulatorError) {
        var line = entry
        line.append(0x0A)
        try state.withLock { state throws(EmulatorError) in
            if let failure = StateFile.writeAll(line, to: state.descriptor) ?? Self.flush(state.descriptor) {
                throw EmulatorError("cannot append to the state journal \(url.path): \(failure)")
            }
            state.records += 1
        }
    }

    /// How many operations were recorded since the journal was opened.
    var records: Int { state.withLock { $0.records } }

    /// Empties the journal after a snapshot that holds everything in it, unless operations were
    /// recorded after `seen` (they may be missing from the snapshot, so they stay).
    func truncate(ifStill seen: Int) throws(EmulatorError) {
        try state.withLock { state throws(EmulatorError) in
            guard state.records == seen else { return }
            guard ftruncate(state.descriptor, 0) == 0, Self.flush(state.descriptor) == nil else {
                throw EmulatorError("cannot empty the state journal \(url.path): \(String(cString: strerror(errno)))")
            }
        }
    }

    private static func flush(_ descriptor: Int32) -> String? {
        fsync(descriptor) == 0 ? nil : String(cString: strerror(errno))
    }

    /// Folds a journal's complete lines into items keyed by their key attributes.
    /// - Throws: ``EmulatorError`` when a complete line is not a journal entry.
    static func replay(_ url: URL, onto items: [Item], keyNames: [String]) throws(EmulatorError) -> [Item] {
        guard let lines = completeLines(url) else { return items }
        var table: [Item: Item] = [:]
        var order: [Item] = []
        func key(of item: Item) -> Item { item.filter { keyNames.contains($0.key) } }
        for item in items {
            let itemKey = key(of: item)
            if table.updateValue(item, forKey: itemKey) == nil { order.append(itemKey) }
        }
        for (number, line) in lines.enumerated() where !line.isEmpty && !isUserPoolLine(line) {
            guard let changes = Self.changes(in: Array(line)) else { throw corrupt(url, line: number + 1) }
            for change in changes {
                let changeKey = key(of: change.key)
                if table.updateValue(change.item ?? [:], forKey: changeKey) == nil { order.append(changeKey) }
            }
        }
        return order.compactMap { table[$0] }.filter { !$0.isEmpty }
    }

    /// Folds a journal's user pool changes into the pool a state file holds (`nil`: none yet).
    /// - Throws: ``EmulatorError`` when a complete line is not a journal entry.
    static func replayUserPool(_ url: URL, onto pool: UserPoolSnapshot?) throws(EmulatorError) -> UserPoolSnapshot? {
        guard let lines = completeLines(url) else { return pool }
        var pool = pool
        for (number, line) in lines.enumerated() where isUserPoolLine(line) {
            guard let json = (try? JSONParser.parse(Array(line)))?["userPool"],
                let change = try? UserPoolChange(json: json)
            else { throw corrupt(url, line: number + 1) }
            var updated = pool ?? UserPoolSnapshot(poolID: change.poolID)
            updated.apply(change)
            pool = updated
        }
        return pool
    }

    /// A journal's complete lines; `nil` when it is empty or absent. The piece after the last newline
    /// is empty, or a line a crash cut short, which was never acknowledged: it is dropped.
    private static func completeLines(_ url: URL) -> [Data.SubSequence]? {
        guard let data = FileManager.default.contents(atPath: url.path), !data.isEmpty else { return nil }
        return Array(data.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast())
    }

    private static func corrupt(_ url: URL, line: Int) -> EmulatorError {
        EmulatorError("state journal \(url.path) is corrupt at line \(line); refusing to use it (move it away)")
    }

    /// Whether a line is a user pool change (`{"userPool":…}`; a table operation's starts `{"changes":`).
    private static func isUserPoolLine(_ line: Data.SubSequence) -> Bool {
        line.starts(with: Array(#"{"userPool":"#.utf8))
    }

    /// One operation's line: `{"changes":[{"item":{…},"key":{…}}]}`, items in DynamoDB's JSON
    /// (``Wire``), `item` absent for a deletion.
    static func line(_ changes: [TableChange]) -> JSONValue {
        let changes = changes.map { change in
            var object: JSONObject = [:]
            if let item = change.item { object["item"] = Wire.item(item) }
            object["key"] = Wire.item(change.key)
            return JSONValue.object(object)
        }
        return ["changes": .array(changes)]
    }

    /// The changes of one line, or `nil` when it is not a journal entry.
    static func changes(in line: [UInt8]) -> [TableChange]? {
        guard let entries = (try? JSONParser.parse(line))?["changes"]?.array else { return nil }
        var changes: [TableChange] = []
        for entry in entries {
            guard let key = entry["key"]?.object.flatMap({ try? Wire.item($0) }) else { return nil }
            switch entry["item"] {
            case nil, .null?: changes.append(TableChange(key: key, item: nil))
            case .object(let item)?:
                guard let item = try? Wire.item(item) else { return nil }
                changes.append(TableChange(key: key, item: item))
            default: return nil
            }
        }
        return changes
    }
}
