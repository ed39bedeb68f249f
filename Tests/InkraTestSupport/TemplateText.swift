import Foundation

/// template.yaml read as lines, for tests that hold it to the code: the resources, their handler
/// and the lines of a block. No YAML library: the template keeps each fact a test reads on a line
/// of its own. The one reader of the template for every test target.
package struct TemplateText: Sendable {
    /// The whole file.
    package let text: String
    /// Its lines.
    package let lines: [String]

    /// Reads the package's template.yaml.
    package init() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        text = try String(contentsOf: root.appendingPathComponent("template.yaml"), encoding: .utf8)
        lines = text.components(separatedBy: "\n")
    }

    /// The lines of the top-level section `name` (`Resources`, `Conditions`…).
    package func section(_ name: String) -> [String] {
        guard let start = lines.firstIndex(of: "\(name):") else { return [] }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { !$0.isEmpty && !$0.hasPrefix(" ") && !$0.hasPrefix("#") } ?? lines.endIndex
        return Array(lines[(start + 1)..<end])
    }

    /// The resources, by logical id, with their lines (up to the next resource).
    package func resources() -> [(name: String, lines: [String])] {
        var resources: [(String, [String])] = []
        for line in section("Resources") {
            if line.hasPrefix("  ") && !line.hasPrefix("   ") && !line.hasPrefix("  #") && line.hasSuffix(":") {
                resources.append((String(line.dropFirst(2).dropLast()), []))
            } else if !resources.isEmpty {
                resources[resources.count - 1].1.append(line)
            }
        }
        return resources
    }

    /// The lines of the resource `name` (up to the next resource), or `nil` when there is none.
    package func resource(_ name: String) -> [String]? {
        resources().first { $0.name == name }?.lines
    }

    /// The functions (`AWS::Serverless::Function`), by handler, with their lines.
    package func functions() -> [String: [String]] {
        var functions: [String: [String]] = [:]
        for (_, lines) in resources() where lines.contains("    Type: AWS::Serverless::Function") {
            guard let handler = Self.value("Handler", in: lines) else { continue }
            functions[handler] = lines
        }
        return functions
    }

    /// The value of the first `key:` in `lines`, quotes removed.
    package static func value(_ key: String, in lines: [String]) -> String? {
        for line in lines {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix(key + ":") else { continue }
            return trimmed.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
                .trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }

    /// The items of a flow list `[a, b, c]`.
    package static func flowList(_ text: String) -> [String] {
        text.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            .split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
