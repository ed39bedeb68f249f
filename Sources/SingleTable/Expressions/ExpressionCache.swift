import Synchronization

/// Parsed expressions by their text, so repeated requests are not parsed again. Bounded: when
/// full, it starts over.
final class ExpressionCache: Sendable {
    private let conditions = Mutex<[String: Parsed<Condition>]>([:])
    private let updates = Mutex<[String: Parsed<UpdateActions>]>([:])
    private let projections = Mutex<[String: Parsed<[DocumentPath]>]>([:])
    private let limit = 2_048

    /// A condition, filter or key condition; `kind` names it in a syntax error (a parsed tree does
    /// not depend on it, so it is not part of the cache key).
    func condition(_ text: String, kind: String) throws(TableError) -> Parsed<Condition> {
        if let hit = conditions.withLock({ $0[text] }) { return hit }
        let parsed = try ExpressionParser.condition(text, kind: kind)
        store(parsed, text, in: conditions)
        return parsed
    }

    func update(_ text: String) throws(TableError) -> Parsed<UpdateActions> {
        if let hit = updates.withLock({ $0[text] }) { return hit }
        let parsed = try ExpressionParser.update(text)
        store(parsed, text, in: updates)
        return parsed
    }

    func projection(_ text: String) throws(TableError) -> Parsed<[DocumentPath]> {
        if let hit = projections.withLock({ $0[text] }) { return hit }
        let parsed = try ExpressionParser.projection(text)
        store(parsed, text, in: projections)
        return parsed
    }

    private func store<T: Sendable>(_ value: T, _ key: String, in cache: borrowing Mutex<[String: T]>) {
        cache.withLock { entries in
            if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            entries[key] = value
        }
    }
}
