import Foundation
import InkraHandlers
import InkraTestSupport
import Testing

/// template.yaml's alarms watch the metrics the functions emit: one name each, `MetricName`'s.
@Suite("Metric names: the code and template.yaml's alarms agree")
struct MetricNameContractTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The `MetricName` of every metric in namespace `Inkra` the template names.
    static func templateMetrics() throws -> Set<String> {
        let template = try TemplateText().text
        var names: Set<String> = []
        var namespace: String?
        for line in template.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("Namespace: ") { namespace = String(line.dropFirst("Namespace: ".count)) }
            if line.hasPrefix("MetricName: "), namespace == "Inkra" {
                names.insert(String(line.dropFirst("MetricName: ".count)))
            }
        }
        return names
    }

    @Test("Every metric the functions emit has an alarm, and every Inkra alarm watches a metric they emit")
    func alarms() throws {
        #expect(try Self.templateMetrics() == Set(MetricName.allCases.map(\.rawValue)))
    }

    @Test("The code names its metrics only through MetricName")
    func noLiteralNames() throws {
        var literals: [String] = []
        for folder in ["Sources", "bootstrap"] {
            let base = Self.root.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard file.pathExtension == "swift" else { continue }
                let text = try String(contentsOf: file, encoding: .utf8)
                for pattern in [#"Counter(label: ""#, #"Timer(label: ""#, #"Recorder(label: ""#]
                where text.contains(pattern) {
                    literals.append(file.lastPathComponent)
                }
            }
        }
        #expect(literals.isEmpty, "metrics named by a literal: \(literals)")
    }
}
