import HTTPText
import InkraJSON

extension JSONObject {
    /// The value of the first key that equals `name` ignoring ASCII case, as an event's HTTP
    /// header names compare.
    package func value(forCaseInsensitiveKey name: String) -> JSONValue? {
        if let exact = self[name] { return exact }
        return pairs.first { $0.key.caseInsensitiveEquals(name) }?.value
    }
}
