import Foundation
import InkraHandlers
import Testing

@testable import InkraRuntime

/// `RuntimeSetting` is the one list the runtime's reader uses: each setting's form (what it
/// accepts, and the error that says so), its default and the functions that read it, and
/// docs/configuration.md says the same.
@Suite("The runtime's settings: forms, defaults and readers from the one list")
struct RuntimeSettingFormTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/configuration.md")

    /// The cells of `setting`'s row in docs/configuration.md, its name's cell first.
    static func row(_ setting: RuntimeSetting) throws -> [String] {
        let text = try String(contentsOf: docs, encoding: .utf8)
        let line = try #require(
            text.split(separator: "\n").first { $0.hasPrefix("| `\(setting.rawValue)` |") },
            "docs/configuration.md has no row for \(setting.rawValue)")
        return line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test(
        "A value outside a setting's form stops start-up naming the setting and what it accepts",
        arguments: RuntimeSetting.allCases.filter { $0.form != .text })
    func malformed(setting: RuntimeSetting) {
        let error = #expect(throws: ConfigurationError.self) {
            try Configuration(environment: [setting.rawValue: "not a value!"])
        }
        #expect(error?.setting == setting.rawValue)
        #expect(error?.reason == "must be \(setting.accepts), got \"not a value!\"")
    }

    @Test("Unset is the default: setting the default explicitly reads the same", arguments: RuntimeSetting.allCases)
    func defaults(setting: RuntimeSetting) throws {
        guard let value = setting.defaultValue else {
            #expect(Configuration() == (try Configuration(environment: [setting.rawValue: ""])))
            return
        }
        #expect(setting.value(of: value) != nil, "\(setting.rawValue)'s default \(value) does not fit its form")
        #expect(Configuration() == (try Configuration(environment: [setting.rawValue: value])))
        #expect(Configuration() != (try Configuration(environment: [setting.rawValue: Self.other(setting)])))
    }

    /// A well-formed value other than the default.
    static func other(_ setting: RuntimeSetting) -> String {
        switch setting.form {
        case .choice(let words): words.first { $0 != setting.defaultValue } ?? ""
        case .seconds(_, let to, _): "\(Int(to))"
        case .tableName: "another-table"
        case .httpURL, .absoluteURL: "https://example.com/other"
        case .text: "other"
        }
    }

    @Test("docs/configuration.md gives each setting's accepted values and default", arguments: RuntimeSetting.allCases)
    func documented(setting: RuntimeSetting) throws {
        let cells = try Self.row(setting)
        try #require(cells.count >= 3)
        let (values, byDefault) = (cells[1], cells[2])
        switch setting.form {
        case .choice(let words):
            for word in words { #expect(values.contains("`\(word)`"), "\(setting.rawValue): \(values)") }
        case .seconds(let from, let to, _):
            #expect(values.contains("\(Int(from))") && values.contains("\(Int(to))"), "\(setting.rawValue): \(values)")
        case .tableName: #expect(values.contains("3 to 255"), "\(values)")
        case .httpURL: #expect(values.contains("`http` or `https` URL"), "\(values)")
        case .absoluteURL: #expect(values.contains("absolute URL"), "\(values)")
        case .text: break
        }
        if let value = setting.defaultValue {
            #expect(byDefault.hasPrefix("`\(value)`"), "\(setting.rawValue)'s default: \(byDefault)")
        }
    }

    @Test(
        "docs/configuration.md's \"read by\" column names the functions the list says",
        arguments: RuntimeSetting.allCases)
    func readers(setting: RuntimeSetting) throws {
        let cells = try Self.row(setting)
        guard cells.count >= 4 else {
            // The model's and the recording's tables have no such column: their sections say it.
            #expect(setting.readBy == .only(["generateQuestions"]) || setting.readBy == .all)
            return
        }
        let readBy = cells[3]
        switch setting.readBy {
        case .all: #expect(readBy == "all" || readBy == "every function", "\(setting.rawValue): \(readBy)")
        case .store:
            #expect(readBy == "`checkUsage`, `generateQuestions`, `deleteAccount`, `repairCharges`", "\(readBy)")
        case .storeOrRecording:
            #expect(
                readBy
                    == "`checkUsage`, `generateQuestions`, `deleteAccount`, `repairCharges`; "
                    + "`authorizer` with `INKRA_RECORD_EVENTS` on",
                "\(setting.rawValue): \(readBy)")
        case .only(let names):
            #expect(readBy == names.map { "`\($0)`" }.joined(separator: ", "), "\(setting.rawValue): \(readBy)")
        }
    }
}
