/// A JSON object that remembers the order of its keys. Two objects are equal when they hold the
/// same members, whatever their order.
public struct JSONObject: Sendable, Hashable {
    /// The keys, in order.
    public private(set) var keys: [String] = []
    private var members: [String: JSONValue] = [:]

    /// An empty object.
    public init() {}

    /// An object from key-value pairs; a repeated key keeps its last value at its first place.
    public init(_ pairs: some Sequence<(String, JSONValue)>) {
        for (key, value) in pairs { self[key] = value }
    }

    /// The value of a key; setting `nil` removes the key.
    public subscript(key: String) -> JSONValue? {
        get { members[key] }
        set {
            if let newValue {
                if members.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if members.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    /// The members in order.
    public var pairs: [(key: String, value: JSONValue)] { keys.map { ($0, members[$0]!) } }

    /// The number of members.
    public var count: Int { keys.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { keys.isEmpty }

    /// The value of the first key that equals `name` ignoring ASCII case (for HTTP header names).
    public func value(forCaseInsensitiveKey name: String) -> JSONValue? {
        if let exact = members[name] { return exact }
        let lowered = name.lowercased()
        for key in keys where key.lowercased() == lowered { return members[key] }
        return nil
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.members == rhs.members }
    public func hash(into hasher: inout Hasher) { hasher.combine(members) }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
