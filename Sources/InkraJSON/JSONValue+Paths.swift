extension JSONValue {
    /// The value at a path of object keys, or `nil`.
    package subscript(path path: [String]) -> JSONValue? {
        var current: JSONValue? = self
        for key in path { current = current?[key] }
        return current
    }

    /// Sets (or, with `nil`, removes) the value at a path of object keys, creating objects on the
    /// way; a non-object on the way is replaced by an object.
    package mutating func set(_ value: JSONValue?, at path: [String]) {
        guard let key = path.first else {
            self = value ?? .null
            return
        }
        var object = self.object ?? JSONObject()
        if path.count == 1 {
            object[key] = value
        } else {
            var child = object[key] ?? .object(JSONObject())
            child.set(value, at: Array(path.dropFirst()))
            object[key] = child
        }
        self = .object(object)
    }

    /// A copy with the value at a path set (or removed).
    package func setting(_ value: JSONValue?, at path: [String]) -> JSONValue {
        var copy = self
        copy.set(value, at: path)
        return copy
    }
}
