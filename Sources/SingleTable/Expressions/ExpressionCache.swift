import Synchronization

/// Parsed expressions by their text, so repeated requests are not parsed again. Bounded: when
/// full, it starts over.
final class ExpressionCache: Sendable {
    private let conditions = Mutex<[String: Parsed<Condition>]>([:])
    private let updates = Mutex<[String: ParsedUpdate]>([:])
    private let projections = Mutex<[String: Parsed<[DocumentPath]>]>([:])
    private let limit = 2_048
    /// The table's key attributes, which an update's plan must not touch.
    private let keyNames: Set<String>

    /// A cache for one table's expressions.
    init(keyNames: Set<String>) {
        self.keyNames = keyNames
    }

    /// A condition, filter or key condition; `kind` names it in a syntax error (a parsed tree does
    /// not depend on it, so it is not part of the cache key).
    func condition(_ text: String, kind: String) throws(TableError) -> Parsed<Condition> {
        if let hit = conditions.withLock({ $0[text] }) { return hit }
        let parsed = try ExpressionParser.condition(text, kind: kind)
        store(parsed, text, in: conditions)
        return parsed
    }

    /// An update expression, with its plan when the plan depends on the text alone (a class, as
    /// ``Parsed`` is: every request with the text shares it).
    final class ParsedUpdate: Sendable {
        let parsed: Parsed<UpdateActions>
        /// The plan, made once, of an expression without `#name` placeholders (those resolve
        /// through each request's names); `nil` when it has some, or when planning fails, so
        /// each request plans it and meets the error in its own order.
        let plan: UpdatePlan?

        init(parsed: Parsed<UpdateActions>, plan: UpdatePlan?) {
            self.parsed = parsed
            self.plan = plan
        }
    }

    /// An update expression, planned against the table's key attributes when it can be.
    func update(_ text: String) throws(TableError) -> ParsedUpdate {
        if let hit = updates.withLock({ $0[text] }) { return hit }
        let parsed = try ExpressionParser.update(text)
        let plan =
            parsed.names.isEmpty
            ? try? UpdateApplier.plan(parsed.tree, keyNames: keyNames, ExpressionContext(names: [:], values: [:]))
            : nil
        let entry = ParsedUpdate(parsed: parsed, plan: plan)
        store(entry, text, in: updates)
        return entry
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
