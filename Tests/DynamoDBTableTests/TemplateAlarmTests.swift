import Foundation
import InkraTestSupport
import Testing

/// The alarms on metrics that more than one function emits watch every function that emits them,
/// and their expression sums every metric they fetch: a function left out (as deleteAccount was
/// from ColdStartAlarm) fails here.
@Suite("template.yaml: alarms cover every function that emits their metric")
struct TemplateAlarmTests {
    /// An alarm's `function` dimensions, and its `Id`s and `Expression`.
    static func alarm(_ name: String) throws -> (functions: Set<String>, ids: [String], expression: String) {
        let lines = try #require(try TemplateText().resources().first { $0.name == name }?.lines, "no \(name)")
        var functions: Set<String> = []
        for line in lines {
            guard let range = line.range(of: "{ Name: function, Value: ") else { continue }
            functions.insert(String(line[range.upperBound...].prefix { $0 != " " && $0 != "}" }))
        }
        let ids = lines.compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("- Id: ") ? String(trimmed.dropFirst("- Id: ".count)) : nil
        }
        return (functions, ids, TemplateText.value("Expression", in: lines) ?? "")
    }

    @Test(
        "Each alarm watches its metric in every function that emits it",
        arguments: [
            ("ColdStartAlarm", false), ("LimitsRefreshFailureAlarm", false), ("UsageStoreFailureAlarm", true),
        ])
    func coversEveryFunction(alarm name: String, storeFunctionsOnly: Bool) throws {
        let handlers = Set(try TemplateText().functions().keys)
        let expected = storeFunctionsOnly ? handlers.subtracting(["authorizer"]) : handlers
        let alarm = try Self.alarm(name)
        #expect(alarm.functions == expected, "\(name)")
        for id in alarm.ids where id != "total" {
            #expect(alarm.expression.contains("FILL(\(id), 0)"), "\(name) fetches \(id) but does not sum it")
        }
        #expect(alarm.ids.count == expected.count + 1, "\(name): one metric per function and the total")
    }
}
