#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// DynamoDB's JSON form of an attribute value: `{"S":"text"}`, `{"N":"12.5"}`, `{"B":"<base64>"}`,
/// `{"BOOL":true}`, `{"NULL":true}`, `{"M":{…}}`, `{"L":[…]}`, `{"SS":[…]}`, `{"NS":["1"]}`, `{"BS":[…]}`.
extension AttributeValue: Codable {
    private struct TypeKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TypeKey.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription:
                        "an attribute value must have exactly one type key (S, N, B, BOOL, NULL, M, L, SS, NS, BS)"
                )
            )
        }
        func number(_ text: String) throws -> Number {
            do {
                return try Number(parsing: text)
            } catch {
                throw DecodingError.dataCorruptedError(
                    forKey: key,
                    in: container,
                    debugDescription: "\(text) is not a DynamoDB number: \(error.message)"
                )
            }
        }
        func binary(_ text: String) throws -> Data {
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "B is not base64")
            }
            return data
        }
        switch key.stringValue {
        case "S": self = .s(try container.decode(String.self, forKey: key))
        case "N": self = .n(try number(try container.decode(String.self, forKey: key)))
        case "B": self = .b(try binary(try container.decode(String.self, forKey: key)))
        case "BOOL": self = .bool(try container.decode(Bool.self, forKey: key))
        case "NULL": self = .null
        case "M": self = .m(try container.decode([String: AttributeValue].self, forKey: key))
        case "L": self = .l(try container.decode([AttributeValue].self, forKey: key))
        case "SS": self = .ss(try container.decode([String].self, forKey: key))
        case "NS": self = .ns(try container.decode([String].self, forKey: key).map(number))
        case "BS": self = .bs(try container.decode([String].self, forKey: key).map(binary))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: key,
                in: container,
                debugDescription: "unknown attribute value type \(key.stringValue)"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TypeKey.self)
        let key = TypeKey(stringValue: typeName)
        switch self {
        case .s(let value): try container.encode(value, forKey: key)
        case .n(let value): try container.encode(value.description, forKey: key)
        case .b(let value): try container.encode(value.base64EncodedString(), forKey: key)
        case .bool(let value): try container.encode(value, forKey: key)
        case .null: try container.encode(true, forKey: key)
        case .m(let value): try container.encode(value, forKey: key)
        case .l(let value): try container.encode(value, forKey: key)
        case .ss(let value): try container.encode(value, forKey: key)
        case .ns(let value): try container.encode(value.map(\.description), forKey: key)
        case .bs(let value): try container.encode(value.map { $0.base64EncodedString() }, forKey: key)
        }
    }
}
