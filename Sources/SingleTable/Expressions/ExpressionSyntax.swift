/// The syntax trees of DynamoDB's expressions. Placeholders stay unresolved (`#name`, `:value`) so
/// a parsed expression can be cached by its text and reused with other placeholder values.

/// One step of a document path.
enum PathElement: Hashable, Sendable {
    /// An attribute or map key: a literal name, or a `#placeholder`.
    case name(String)
    /// A list index.
    case index(Int)
}

/// A document path such as `a.#b[2].c`.
struct DocumentPath: Hashable, Sendable {
    var elements: [PathElement]
}

/// A value in an expression.
indirect enum Operand: Hashable, Sendable {
    case path(DocumentPath)
    /// A `:placeholder`.
    case value(String)
    case size(DocumentPath)
    case ifNotExists(DocumentPath, Operand)
    case listAppend(Operand, Operand)
    case plus(Operand, Operand)
    case minus(Operand, Operand)
}

/// A comparison operator.
enum Comparator: String, Hashable, Sendable {
    case equal = "="
    case notEqual = "<>"
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
}

/// A condition (also a filter).
indirect enum Condition: Hashable, Sendable {
    case compare(Operand, Comparator, Operand)
    case between(Operand, Operand, Operand)
    case among(Operand, [Operand])
    case and(Condition, Condition)
    case or(Condition, Condition)
    case not(Condition)
    case attributeExists(DocumentPath)
    case attributeNotExists(DocumentPath)
    case attributeType(DocumentPath, Operand)
    case beginsWith(Operand, Operand)
    case contains(Operand, Operand)
}

/// An update expression's actions, clause by clause.
struct UpdateActions: Hashable, Sendable {
    var set: [(DocumentPath, Operand)] = []
    var remove: [DocumentPath] = []
    var add: [(DocumentPath, Operand)] = []
    var delete: [(DocumentPath, Operand)] = []

    static func == (lhs: UpdateActions, rhs: UpdateActions) -> Bool {
        lhs.set.map(\.0) == rhs.set.map(\.0) && lhs.set.map(\.1) == rhs.set.map(\.1) && lhs.remove == rhs.remove
            && lhs.add.map(\.0) == rhs.add.map(\.0) && lhs.add.map(\.1) == rhs.add.map(\.1)
            && lhs.delete.map(\.0) == rhs.delete.map(\.0) && lhs.delete.map(\.1) == rhs.delete.map(\.1)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(set.map(\.0))
        hasher.combine(remove)
        hasher.combine(add.map(\.0))
        hasher.combine(delete.map(\.0))
    }
}

/// The `#name` and `:value` placeholders an expression uses.
typealias Placeholders = (names: Set<String>, values: Set<String>)

/// A parsed expression with the placeholders it uses.
///
/// A class: the expression cache hands the same parse to every request that sends the text, and a
/// reference is one retain where a copy of the tree and both sets is three.
final class Parsed<Tree: Sendable>: Sendable {
    let tree: Tree
    let names: Set<String>
    let values: Set<String>

    init(tree: Tree, names: Set<String>, values: Set<String>) {
        self.tree = tree
        self.names = names
        self.values = values
    }

    var placeholders: Placeholders { (names, values) }
}
