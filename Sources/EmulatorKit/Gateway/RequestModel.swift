import Foundation
import InkraHandlers
import InkraJSON

/// A REST API method's request model, checked as API Gateway's request validator checks a body
/// ("Request validation for REST APIs in API Gateway"): a JSON Schema draft 4 the body must match,
/// else API Gateway answers 400 `Invalid request body` itself and invokes nothing.
///
/// The models are template.yaml's `Models` (and openapi.yaml's request schemas) word for word;
/// `RequestModelContractTests` holds the three together. Only the draft-4 keywords the models use
/// are understood (``keywords``); a test refuses a model that uses another.
package struct RequestModel: Sendable {
    /// The schema.
    package let schema: JSONValue

    /// The validation keywords understood; annotations (`$schema`, `title`, `description`) are
    /// ignored, as a validator ignores them.
    package static let keywords: Set<String> = [
        "type", "enum", "required", "properties", "additionalProperties", "minLength", "maxLength", "minimum",
        "maximum", "multipleOf",
    ]

    /// The body of `POST /questions` (template.yaml's `QuestionsRequest`). It refuses only what
    /// `generateQuestions` could never accept: limits counted after trimming whitespace, in
    /// characters or in UTF-8 bytes, stay the function's to check.
    package static let questions = RequestModel(
        json: """
            {
              "$schema": "http://json-schema.org/draft-04/schema#",
              "title": "QuestionsRequest",
              "type": "object",
              "required": ["topic"],
              "properties": {
                "topic": {"type": "string", "minLength": 1},
                "length": {"type": ["string", "null"], "enum": ["short", "medium", "long", null]},
                "count": {"type": ["number", "null"], "multipleOf": 1, "minimum": 1, "maximum": 20},
                "language": {"type": ["string", "null"], "minLength": 1}
              }
            }
            """)

    /// The model of each function's route, as template.yaml's events name them (`RequestModel`
    /// with `ValidateBody: true`); a function without one takes any body.
    package static let byFunction: [FunctionName: RequestModel] = [.generateQuestions: .questions]

    /// A model from its JSON text.
    init(json: String) {
        do {
            schema = try JSONParser.parse(json)
        } catch {
            preconditionFailure("a request model is not JSON: \(error)")
        }
    }

    /// Whether a request's body matches, as API Gateway decides it: only a body sent as
    /// `application/json` (or with no `Content-Type`, which API Gateway takes as JSON) is checked,
    /// since SAM files the model under that media type; any other body passes to the function,
    /// which checks it anyway. An empty body is `null`, which no object model accepts.
    package func accepts(body: [UInt8], contentType: String?) -> Bool {
        if let contentType {
            let media = contentType.split(separator: ";", maxSplits: 1).first ?? ""
            guard media.trimmingCharacters(in: .whitespaces).lowercased() == "application/json" else { return true }
        }
        guard let value = try? JSONParser.parse(body, maximumDepth: 512) else { return false }
        return Self.matches(value, schema)
    }

    /// Whether `value` matches `schema` (the draft-4 keywords of ``keywords``).
    static func matches(_ value: JSONValue, _ schema: JSONValue) -> Bool {
        if let type = schema["type"] {
            let names = type.array?.compactMap(\.string) ?? [type.string].compactMap { $0 }
            guard names.contains(where: { isOfType(value, $0) }) else { return false }
        }
        if let choices = schema["enum"]?.array, !choices.contains(where: { equal($0, value) }) { return false }
        switch value {
        case .string(let text):
            let length = text.unicodeScalars.count
            if let minimum = schema["minLength"]?.int, length < minimum { return false }
            if let maximum = schema["maxLength"]?.int, length > maximum { return false }
        case .number:
            guard let number = value.double else { return false }
            if let minimum = schema["minimum"]?.double, number < minimum { return false }
            if let maximum = schema["maximum"]?.double, number > maximum { return false }
            if let divisor = schema["multipleOf"]?.double {
                let quotient = number / divisor
                guard quotient.isFinite, quotient.rounded() == quotient else { return false }
            }
        case .object(let object):
            for name in schema["required"]?.array?.compactMap(\.string) ?? [] where object[name] == nil {
                return false
            }
            let properties = schema["properties"]?.object ?? JSONObject()
            for (name, member) in object.pairs {
                if let memberSchema = properties[name] {
                    guard matches(member, memberSchema) else { return false }
                } else if schema["additionalProperties"]?.bool == false {
                    return false
                }
            }
        default:
            break
        }
        return true
    }

    private static func isOfType(_ value: JSONValue, _ name: String) -> Bool {
        switch (name, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object),
            ("number", .number):
            true
        case ("integer", .number(let text)):
            // Draft 4: a number without a fraction or an exponent.
            !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
        default:
            false
        }
    }

    /// JSON equality: numbers by value, the rest as they are.
    private static func equal(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        if case .number = lhs, case .number = rhs { return lhs.double == rhs.double }
        return lhs == rhs
    }
}
