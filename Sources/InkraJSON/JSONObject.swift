/// A JSON object that keeps its members in the order they were first set.
///
/// Most objects this project handles are small (an event's sections, a response, a claim set),
/// so members live in one array searched linearly, which costs less than hashing every key; an
/// index by key is built only once an object grows past ``indexThreshold`` members.
public struct JSONObject: Sendable, Hashable {
    /// The members, in order.
    private var entries: [(key: String, value: JSONValue)] = []
    /// Key → position in `entries`, kept only for large objects.
    private var index: [String: Int]?

    /// The member count past which lookups go through an index.
    static let indexThreshold = 16

    /// An empty object.
    public init() {}

    /// An object from key-value pairs; a repeated key keeps its last value at its first place.
    public init(_ pairs: some Sequence<(String, JSONValue)>) {
        entries.reserveCapacity(pairs.underestimatedCount)
        for (key, value) in pairs { self[key] = value }
    }

    /// An object from pairs whose keys the caller knows to be distinct (the fixed members of an
    /// event's sections, say), without the search for an earlier member that ``init(_:)`` makes
    /// for each key, and without a copy: the array becomes the object's storage as it is. A
    /// repeated key is a programming error, caught in debug builds.
    package init(uniqueKeysWithValues pairs: [(key: String, value: JSONValue)]) {
        assert(Set(pairs.map(\.key)).count == pairs.count, "repeated keys in \(pairs.map(\.key))")
        entries = pairs
        if entries.count > Self.indexThreshold { index = Self.index(of: entries) }
    }

    /// Key → position, for an object past ``indexThreshold`` members.
    private static func index(of entries: [(key: String, value: JSONValue)]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: entries.enumerated().map { ($0.element.key, $0.offset) })
    }

    /// The keys, in order.
    public var keys: [String] { entries.map(\.key) }

    /// The position of a key in `entries`.
    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        return entries.firstIndex { $0.key == key }
    }

    /// The value of a key; setting `nil` removes the key.
    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { entries[$0].value } }
        set {
            switch (position(of: key), newValue) {
            case (let position?, let value?):
                entries[position].value = value
            case (nil, let value?):
                entries.append((key, value))
                if index != nil {
                    index?[key] = entries.count - 1
                } else if entries.count > Self.indexThreshold {
                    index = Self.index(of: entries)
                }
            case (let position?, nil):
                entries.remove(at: position)
                if index != nil { index = Self.index(of: entries) }
            case (nil, nil):
                break
            }
        }
    }

    /// The members in order.
    package var pairs: [(key: String, value: JSONValue)] { entries }

    /// The number of members.
    public var count: Int { entries.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { entries.isEmpty }

    /// Equal when both have the same members, whatever their order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.entries.allSatisfy { rhs[$0.key] == $0.value }
    }

    /// Hashes the members independently of their order, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for (key, value) in entries {
            var member = Hasher()
            member.combine(key)
            member.combine(value)
            combined ^= member.finalize()
        }
        hasher.combine(entries.count)
        hasher.combine(combined)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
