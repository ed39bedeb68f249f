import InkraHandlers
import InkraJSON

/// What an event's `<name>.expected.json` says its result must be. Every member is optional:
/// `statusCode` (equal), `headers` and `body` (a JSON subset of the proxy response's headers and
/// parsed body), `response` (a subset of the raw result, for the authorizer), `error` (a subset
/// of Lambda's error object when the invocation must fail).
package struct Expectation: Sendable, Hashable {
    /// The file's JSON.
    package var json: JSONValue

    /// Wraps an expectation file's JSON.
    package init(json: JSONValue) { self.json = json }

    /// The expectation that matches an invocation exactly as it went, for `--update`.
    package init(recording invocation: Invocation) {
        switch invocation.outcome {
        case .failure(let error):
            json = ["error": error.json]
        case .success(let result):
            if let status = result["statusCode"]?.int {
                var expected: JSONValue = ["statusCode": .number(status)]
                if let text = result["body"]?.string {
                    expected.set((try? JSONParser.parse(text)) ?? .string(text), at: ["body"])
                }
                json = expected
            } else {
                json = ["response": result]
            }
        }
    }

    /// The differences between this expectation and an invocation; empty when it matches.
    package func mismatches(_ invocation: Invocation) -> [String] {
        var found: [String] = []
        switch invocation.outcome {
        case .failure(let error):
            guard let expected = json["error"] else {
                return ["expected a result, but the invocation failed: \(error.errorType): \(error.errorMessage)"]
            }
            JSONSubset.compare(expected, error.json, path: "error", into: &found)
        case .success(let result):
            if let expected = json["error"] {
                return [
                    "expected the invocation to fail with \(expected.jsonString), but it returned \(Self.brief(result))"
                ]
            }
            if let status = json["statusCode"] {
                let actual = result["statusCode"] ?? .null
                if status.int != actual.int {
                    found.append("statusCode: expected \(status.jsonString), got \(actual.jsonString)")
                }
            }
            if let headers = json["headers"] {
                JSONSubset.compare(headers, result["headers"] ?? .null, path: "headers", into: &found)
            }
            if let body = json["body"] {
                let text = result["body"]?.string ?? ""
                let actual = (try? JSONParser.parse(text)) ?? .string(text)
                JSONSubset.compare(body, actual, path: "body", into: &found)
            }
            if let response = json["response"] {
                JSONSubset.compare(response, result, path: "response", into: &found)
            }
        }
        return found
    }

    private static func brief(_ value: JSONValue) -> String {
        let text = value.jsonString
        return text.count > 160 ? String(text.prefix(157)) + "..." : text
    }
}

/// "Is the expected JSON a subset of the actual?": objects may have more members than expected;
/// arrays must have the same length, element by element; scalars must be equal (numbers by value).
enum JSONSubset {
    static func compare(_ expected: JSONValue, _ actual: JSONValue?, path: String, into found: inout [String]) {
        guard let actual else {
            found.append("\(path): expected \(show(expected)), got (missing)")
            return
        }
        switch (expected, actual) {
        case (.object(let want), .object(let have)):
            for (key, value) in want.pairs {
                compare(value, have[key], path: "\(path).\(key)", into: &found)
            }
        case (.array(let want), .array(let have)):
            guard want.count == have.count else {
                found.append("\(path): expected \(want.count) elements, got \(have.count)")
                return
            }
            for (index, pair) in zip(want, have).enumerated() {
                compare(pair.0, pair.1, path: "\(path)[\(index)]", into: &found)
            }
        case (.number(let want), .number(let have)):
            if want != have && Double(want) != Double(have) {
                found.append("\(path): expected \(want), got \(have)")
            }
        default:
            if expected != actual {
                found.append("\(path): expected \(show(expected)), got \(show(actual))")
            }
        }
    }

    private static func show(_ value: JSONValue) -> String {
        let text = value.jsonString
        return text.count > 120 ? String(text.prefix(117)) + "..." : text
    }
}
