import HTTPText
import InkraJSON
import SingleTable

/// DynamoDB's JSON form of attribute values and items (`{"S":"text"}`, `{"N":"12.5"}`,
/// `{"M":{…}}`…), on `JSONValue`: the package's one codec for it, used by this client, the
/// emulator's DynamoDB endpoint, its state files and scans, and the console.
package enum Wire {
    /// An attribute value as DynamoDB writes it: one member named after its type.
    package static func value(_ value: AttributeValue) -> JSONValue {
        switch value {
        case .s(let text): ["S": .string(text)]
        case .n(let number): ["N": .string(number.description)]
        case .b(let data): ["B": .string(Base64.encode(data))]
        case .bool(let flag): ["BOOL": .bool(flag)]
        case .null: ["NULL": true]
        case .m(let map): ["M": item(map)]
        case .l(let list): ["L": .array(list.map(Self.value))]
        case .ss(let set): ["SS": .array(set.map(JSONValue.string))]
        case .ns(let set): ["NS": .array(set.map { .string($0.description) })]
        case .bs(let set): ["BS": .array(set.map { .string(Base64.encode($0)) })]
        }
    }

    /// An item (or a key, or expression attribute values) as a map of attribute values, its
    /// members in name order.
    package static func item(_ item: Item) -> JSONValue {
        .object(JSONObject(item.sorted { $0.key < $1.key }.map { ($0.key, value($0.value)) }))
    }

    /// Reads an attribute value.
    /// - Throws: `TableError` (`InternalServerError`: DynamoDB's answer cannot be read) naming
    ///   what is malformed; readers of other sources report it as their own error.
    package static func attribute(_ json: JSONValue) throws(TableError) -> AttributeValue {
        guard let object = json.object, object.count == 1, let member = object.pairs.first else {
            throw malformed("an attribute value must have exactly one type")
        }
        let (type, body) = (member.key, member.value)
        func number(_ value: JSONValue) throws(TableError) -> Number {
            guard let text = value.string else { throw malformed("N must be a string") }
            return try Number(parsing: text)
        }
        func binary(_ value: JSONValue) throws(TableError) -> [UInt8] {
            guard let text = value.string, let data = Base64.decode(text) else {
                throw malformed("B must be base64")
            }
            return data
        }
        func list(_ value: JSONValue) throws(TableError) -> [JSONValue] {
            guard let array = value.array else { throw malformed("\(type) must be a list") }
            return array
        }
        switch type {
        case "S":
            guard let text = body.string else { throw malformed("S must be a string") }
            return .s(text)
        case "N": return .n(try number(body))
        case "B": return .b(try binary(body))
        case "BOOL":
            guard let flag = body.bool else { throw malformed("BOOL must be a boolean") }
            return .bool(flag)
        case "NULL": return .null
        case "M":
            guard let map = body.object else { throw malformed("M must be a map") }
            return .m(try item(map))
        case "L": return .l(try list(body).map { element throws(TableError) in try attribute(element) })
        case "SS":
            return .ss(
                try list(body).map { element throws(TableError) in
                    guard let text = element.string else { throw malformed("SS must hold strings") }
                    return text
                })
        case "NS": return .ns(try list(body).map { element throws(TableError) in try number(element) })
        case "BS": return .bs(try list(body).map { element throws(TableError) in try binary(element) })
        default: throw malformed("unknown attribute type \(type)")
        }
    }

    /// Reads an item: every member an attribute value.
    /// - Throws: `TableError`, as ``attribute(_:)``.
    package static func item(_ object: JSONObject) throws(TableError) -> Item {
        var result: Item = [:]
        for (name, value) in object.pairs { result[name] = try attribute(value) }
        return result
    }

    /// Reads an optional item: `nil` when the value is absent or not an object.
    /// - Throws: `TableError`, as ``attribute(_:)``.
    package static func item(_ json: JSONValue?) throws(TableError) -> Item? {
        guard let object = json?.object else { return nil }
        return try item(object)
    }

    private static func malformed(_ message: String) -> TableError {
        TableError(.internalServerError, "DynamoDB answered an attribute value that cannot be read: \(message)")
    }
}
