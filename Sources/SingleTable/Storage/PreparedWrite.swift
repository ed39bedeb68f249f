/// A write checked for form before the table is locked: key, parsed expressions, placeholders.
///
/// A class: a transaction passes its writes around under the table's lock, and a reference is
/// cheaper to hand on than the many values a write holds.
final class PreparedWrite {
    enum Kind {
        case put(Item)
        /// The update, planned (`nil` for an `UpdateItem` without an update expression).
        case update(UpdatePlan?)
        case delete
        case check
    }

    let kind: Kind
    let key: TableState.PrimaryKey
    /// The names of the table's key attributes.
    let keyNames: TableSchema.Key
    let condition: Parsed<Condition>?
    let context: ExpressionContext
    let returnValues: ReturnValues
    let returnOnFailure: ReturnValuesOnConditionCheckFailure

    init(
        kind: Kind, key: TableState.PrimaryKey, keyNames: TableSchema.Key, condition: Parsed<Condition>?,
        context: ExpressionContext, returnValues: ReturnValues, returnOnFailure: ReturnValuesOnConditionCheckFailure
    ) {
        self.kind = kind
        self.key = key
        self.keyNames = keyNames
        self.condition = condition
        self.context = context
        self.returnValues = returnValues
        self.returnOnFailure = returnOnFailure
    }

    /// The key as an item: its key attributes only. Built when asked for (an update of an item
    /// not there yet, a journal's record), not for every write.
    var keyItem: Item { key.item(named: keyNames) }

    /// Whether the write changes the table (a condition check does not).
    var writes: Bool {
        if case .check = kind { return false }
        return true
    }

    /// The item as it is, once the condition is known to hold.
    /// - Throws: ``TableError`` `ConditionalCheckFailedException`, with the item when asked for.
    func check(against state: TableState) throws(TableError) -> Item? {
        let old = state.item(at: key)
        if let condition, try !ConditionEvaluator.evaluate(condition.tree, old, context) {
            throw TableError(
                .conditionalCheckFailed,
                "The conditional request failed",
                item: returnOnFailure == .allOld ? old : nil
            )
        }
        return old
    }

    /// The item after the write (`nil` when deleted).
    func apply(to old: Item?) throws(TableError) -> Item? {
        switch kind {
        case .put(let item):
            return item
        case .delete:
            return nil
        case .check:
            return old
        case .update(let plan):
            var item = old ?? keyItem
            if let plan { try UpdateApplier.apply(plan, to: &item, context) }
            try ItemSize.validate(item)
            return item
        }
    }

    /// What `ReturnValues` asks for.
    func returned(old: Item?, new: Item?) -> Item? {
        switch returnValues {
        case .none: return nil
        case .allOld: return old
        case .allNew: return new
        case .updatedOld, .updatedNew:
            guard case .update(let plan?) = kind else { return nil }
            let touched = Self.touchedNames(plan)
            let source = returnValues == .updatedOld ? old : new
            guard let source else { return nil }
            let result = source.filter { touched.contains($0.key) }
            return result.isEmpty ? nil : result
        }
    }

    private static func touchedNames(_ plan: UpdatePlan) -> Set<String> {
        let paths = plan.set.map(\.0) + plan.remove + plan.add.map(\.0) + plan.delete.map(\.0)
        var names: Set<String> = []
        for path in paths {
            if case .key(let name)? = path.first { names.insert(name) }
        }
        return names
    }
}

extension InMemoryTable {
    /// Checks a write's form: table, key, expressions, placeholders, `ReturnValues`.
    func prepare(_ action: TransactWriteItem) throws(TableError) -> PreparedWrite {
        let tableName: String
        let keySource: Item
        let exact: Bool
        let conditionText: String?
        let attributes: ExpressionAttributes
        let returnValues: ReturnValues
        let returnOnFailure: ReturnValuesOnConditionCheckFailure
        let kind: PreparedWrite.Kind
        var updateActions: ExpressionCache.ParsedUpdate?
        switch action {
        case .put(let request):
            (tableName, keySource, exact, conditionText, attributes) = (
                request.tableName, request.item, false, request.conditionExpression, request.expressionAttributes
            )
            (returnValues, returnOnFailure) = (request.returnValues, request.returnValuesOnConditionCheckFailure)
            kind = .put(request.item)
            try ItemSize.validate(request.item)
        case .update(let request):
            (tableName, keySource, exact, conditionText, attributes) = (
                request.tableName, request.key, true, request.conditionExpression, request.expressionAttributes
            )
            (returnValues, returnOnFailure) = (request.returnValues, request.returnValuesOnConditionCheckFailure)
            updateActions = try request.updateExpression.map { text throws(TableError) in try expressions.update(text) }
            kind = .update(nil)  // planned below, once the placeholders are known to be right
        case .delete(let request):
            (tableName, keySource, exact, conditionText, attributes) = (
                request.tableName, request.key, true, request.conditionExpression, request.expressionAttributes
            )
            (returnValues, returnOnFailure) = (request.returnValues, request.returnValuesOnConditionCheckFailure)
            kind = .delete
        case .conditionCheck(let request):
            (tableName, keySource, exact, conditionText, attributes) = (
                request.tableName, request.key, true, request.conditionExpression, request.expressionAttributes
            )
            (returnValues, returnOnFailure) = (.none, request.returnValuesOnConditionCheckFailure)
            kind = .check
        }
        try checkTable(tableName)
        switch (kind, returnValues) {
        case (.put, .none), (.put, .allOld), (.delete, .none), (.delete, .allOld), (.update, _), (.check, _): break
        default:
            throw TableError(.validation, "ReturnValues can only be ALL_OLD or NONE")
        }
        let key = try TableState.primaryKey(of: keySource, exact: exact, schema: schema)
        let condition = try conditionText.map { text throws(TableError) in
            try expressions.condition(text, kind: "ConditionExpression")
        }
        try ExpressionContext.checkPlaceholders(
            used: [condition?.placeholders, updateActions?.parsed.placeholders],
            names: attributes.names,
            values: attributes.values
        )
        let context = ExpressionContext(names: attributes.names, values: attributes.values)
        let planned = try updateActions.map { actions throws(TableError) in
            if let plan = actions.plan { return PreparedWrite.Kind.update(plan) }
            return PreparedWrite.Kind.update(try UpdateApplier.plan(actions.parsed.tree, keyNames: keyNames, context))
        }
        return PreparedWrite(
            kind: planned ?? kind,
            key: key,
            keyNames: schema.key,
            condition: condition,
            context: context,
            returnValues: returnValues,
            returnOnFailure: returnOnFailure
        )
    }
}
