/// Numbers gathered into sets by union-find: how `replay --jobs` groups events, so that events
/// sharing a key (a user, an idempotency key) end up in one set, however they are chained.
struct DisjointSets {
    /// Each member's parent; a set's representative is its own parent.
    private var parent: [Int]

    /// No member yet.
    init() { parent = [] }

    /// Adds a set of one new member.
    /// - Returns: the member's number.
    mutating func add() -> Int {
        parent.append(parent.count)
        return parent.count - 1
    }

    /// The representative of the set a member is in (halving the path to it on the way).
    mutating func root(_ member: Int) -> Int {
        var member = member
        while parent[member] != member {
            parent[member] = parent[parent[member]]
            member = parent[member]
        }
        return member
    }

    /// Joins the set `member` is in into the set `other` is in.
    mutating func join(_ member: Int, into other: Int) {
        parent[root(member)] = root(other)
    }
}
