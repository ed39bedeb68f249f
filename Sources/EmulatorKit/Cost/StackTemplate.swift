import Foundation

/// template.yaml read as lines, for the bill's fixed monthly lines: its resources with their type
/// and condition, its parameters' defaults and its conditions of the form
/// `!Equals [!Ref Parameter, "value"]`. No YAML library: the template keeps each fact the bill
/// reads on a line of its own, as the tests' reader (`TemplateText`) expects too.
package struct StackTemplate: Sendable {
    /// One resource: its logical id, `Type`, `Condition` and lines (up to the next resource).
    package struct Resource: Sendable {
        /// The logical id.
        package var name: String
        /// `AWS::CloudWatch::Alarm`, …
        package var type: String
        /// The condition it is created under, if any.
        package var condition: String?
        /// Its lines, the first (its name) not included.
        package var lines: [String]

        /// The value of the first `key:` in its lines, quotes removed.
        package func value(_ key: String) -> String? {
            values(key).first
        }

        /// The values of every `key:` in its lines (a one-line flow map's pairs included), quotes removed.
        package func values(_ key: String) -> [String] {
            lines.flatMap { line -> [String] in
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                let text = trimmed.hasPrefix("- ") ? String(trimmed.dropFirst(2)) : trimmed
                // A flow map on one line, `{ Name: function, Value: checkUsage }`: each of its pairs.
                let pairs =
                    text.hasPrefix("{") && text.hasSuffix("}")
                    ? text.dropFirst().dropLast().split(separator: ",").map(String.init) : [text]
                return pairs.compactMap { pair in
                    let pair = pair.trimmingCharacters(in: .whitespaces)
                    guard pair.hasPrefix(key + ":") else { return nil }
                    return pair.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
                        .trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
                }
            }
        }
    }

    /// The file, as named in output.
    package var file: String
    /// The resources, in the template's order.
    package var resources: [Resource]
    /// Each parameter's `Default`, quotes removed.
    package var defaults: [String: String]
    /// Each condition's text, as written.
    package var conditions: [String: String]

    /// The repository's template, relative to the repository root.
    package static let repositoryFile = "template.yaml"

    /// Reads a template.
    /// - Throws: ``EmulatorError`` naming the file when it cannot be read or holds no resource.
    package init(contentsOf url: URL) throws(EmulatorError) {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw EmulatorError("template \(url.relativePath): cannot be read (\(error.localizedDescription))")
        }
        self.init(text: text, file: url.relativePath)
        guard !resources.isEmpty else { throw EmulatorError("template \(file): no Resources section") }
    }

    /// Reads a template's text.
    package init(text: String, file: String) {
        self.file = file
        let lines = text.components(separatedBy: "\n")
        func section(_ name: String) -> [String] {
            guard let start = lines.firstIndex(of: "\(name):") else { return [] }
            let rest = lines[(start + 1)...]
            let end = rest.firstIndex { !$0.isEmpty && !$0.hasPrefix(" ") && !$0.hasPrefix("#") } ?? lines.endIndex
            return Array(lines[(start + 1)..<end])
        }
        /// The section's entries at two spaces of indentation, with their lines.
        func entries(_ name: String) -> [(name: String, head: String, lines: [String])] {
            var entries: [(String, String, [String])] = []
            for line in section(name) {
                if line.hasPrefix("  ") && !line.hasPrefix("   ") && !line.hasPrefix("  #") {
                    let parts = line.dropFirst(2).split(separator: ":", maxSplits: 1)
                    let head = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
                    entries.append((String(parts[0]), head, []))
                } else if !entries.isEmpty {
                    entries[entries.count - 1].2.append(line)
                }
            }
            return entries
        }
        resources = entries("Resources").map { entry in
            let own = entry.lines.filter { $0.hasPrefix("    ") && !$0.hasPrefix("     ") }
            func field(_ key: String) -> String? {
                own.first { $0.hasPrefix("    \(key): ") }.map { String($0.dropFirst(key.count + 6)) }
            }
            return Resource(
                name: entry.name, type: field("Type") ?? "", condition: field("Condition"), lines: entry.lines)
        }
        var defaults: [String: String] = [:]
        for entry in entries("Parameters") {
            let resource = Resource(name: entry.name, type: "", lines: entry.lines)
            defaults[entry.name] = resource.value("Default")
        }
        self.defaults = defaults
        conditions = Dictionary(
            entries("Conditions").map { ($0.name, $0.head) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether a condition holds with the parameters' defaults, `parameters` overriding them:
    /// `!Equals [!Ref Name, "value"]` is read; any other form is taken to hold.
    package func holds(_ condition: String, parameters: [String: String] = [:]) -> Bool {
        guard let text = conditions[condition], text.hasPrefix("!Equals [!Ref "), text.hasSuffix("]") else {
            return true
        }
        let parts = text.dropFirst("!Equals [!Ref ".count).dropLast().split(separator: ",", maxSplits: 1)
        guard parts.count == 2 else { return true }
        let name = parts[0].trimmingCharacters(in: .whitespaces)
        let value = parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
            in: CharacterSet(charactersIn: "\"'"))
        return (parameters[name] ?? defaults[name]) == value
    }

    /// The resources of a type the stack creates: those without a condition, and those whose
    /// condition holds.
    package func created(_ type: String, parameters: [String: String] = [:]) -> [Resource] {
        resources.filter { $0.type == type && ($0.condition.map { holds($0, parameters: parameters) } ?? true) }
    }
}
