import Foundation
import InkraHandlers
import InkraTime
import Testing

@testable import EmulatorKit
@testable import InkraRuntime

/// `RuntimeSetting` is the one list of the runtime's `INKRA_*` settings: the runtime's sources name
/// no other, every one of them is read, the runtime accepts exactly these inside Lambda, and
/// `run-runtime` lets through from a developer's shell exactly those the list allows.
@Suite("The runtime's settings: one list")
struct RuntimeSettingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The text of every Swift file of the shipped runtime's configuration: `bootstrap/`, the
    /// runtime in `Sources/InkraRuntime/` and the model's reader in `Sources/InkraLLM/`.
    static func runtimeSources() throws -> [(file: String, text: String)] {
        var sources: [(String, String)] = []
        for folder in ["bootstrap", "Sources/InkraRuntime", "Sources/InkraLLM"] {
            let base = root.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: base.path).sorted()
            where name.hasSuffix(".swift") {
                sources.append(
                    ("\(folder)/\(name)", try String(contentsOf: base.appendingPathComponent(name), encoding: .utf8)))
            }
        }
        return sources
    }

    /// The `INKRA_` names in `text`, `prefix` before each (`"` for a string literal, empty for
    /// any mention); a name ending in `_` (as in `INKRA_LLM_*`) is a family, not a setting.
    static func names(in text: String, after prefix: String) throws -> Set<String> {
        let pattern = try Regex(prefix + "(INKRA_[A-Z0-9_]+)")
        var names: Set<String> = []
        for match in text.matches(of: pattern) {
            guard let name = match.output[1].substring.map(String.init), !name.hasSuffix("_") else { continue }
            names.insert(name)
        }
        return names
    }

    @Test("Every INKRA_ name in bootstrap/, InkraRuntime's and InkraLLM's sources, comments included, is in the list")
    func sourcesNameOnlyListedSettings() throws {
        let listed = Set(RuntimeSetting.allCases.map(\.rawValue))
        let sources = try Self.runtimeSources()
        #expect(sources.contains { $0.file == "Sources/InkraRuntime/Configuration.swift" })
        for (file, text) in sources {
            let unlisted = try Self.names(in: text, after: "").subtracting(listed)
            #expect(unlisted.isEmpty, "\(file) names INKRA_ settings RuntimeSetting lacks: \(unlisted.sorted())")
        }
    }

    @Test("Every setting in the list is used by the runtime: by its case (`.tableName`) or its name in a string")
    func everyListedSettingIsRead() throws {
        let sources = try Self.runtimeSources().map(\.text).joined(separator: "\n")
        var literals: Set<String> = []
        literals.formUnion(try Self.names(in: sources, after: "\""))
        let unread = try RuntimeSetting.allCases.filter { setting in
            let byCase = try Regex("\\.\(String(describing: setting))[^A-Za-z0-9_]")
            return !literals.contains(setting.rawValue) && !sources.contains(byCase)
        }
        #expect(unread.isEmpty, "listed but used nowhere in the runtime: \(unread.map(\.rawValue).sorted())")
    }

    @Test("Inside Lambda every listed setting is taken as a setting", arguments: RuntimeSetting.allCases)
    func listedSettingIsKnown(setting: RuntimeSetting) {
        var environment = ["AWS_LAMBDA_FUNCTION_NAME": "checkUsage", "INKRA_STORE": "memory"]
        environment[setting.rawValue] = "x"
        do {
            _ = try Configuration(environment: environment)
        } catch {
            // A value of the wrong form may be refused, but never the name.
            #expect(error.setting == setting.rawValue)
            #expect(!error.reason.contains("is not a setting"), "\(error)")
        }
        #expect(Configuration.knownSettings.contains(setting.rawValue))
    }

    @Test("Inside Lambda an INKRA_ name outside the list stops start-up, naming it and listing the known ones")
    func unlistedSettingStops() {
        let environment = [
            "AWS_LAMBDA_FUNCTION_NAME": "checkUsage", "INKRA_STORE": "memory", "INKRA_LLM_MODLE": "typo",
        ]
        let error = #expect(throws: ConfigurationError.self) { try Configuration(environment: environment) }
        #expect(error?.setting == "INKRA_LLM_MODLE")
        #expect(error?.code == .unknownSetting)
        #expect(error?.reason.contains("is not a setting of this runtime") == true)
        #expect(error?.reason.contains("INKRA_LLM_MODEL") == true, "the known settings are listed")
    }

    @Test("run-runtime passes a shell's setting exactly when the list allows it", arguments: RuntimeSetting.allCases)
    func localRuntimePassesAllowed(setting: RuntimeSetting) throws {
        let shell = [setting.rawValue: "from-the-shell", "INKRA_LLM_NOT_A_SETTING": "x", "HOME": "/home/dev"]
        var options = EmulatorOptions(clock: { Timestamp(timeIntervalSince1970: 1_763_000_000) })
        options.tableName = "inkra-usage-local"
        let environment = try LocalRuntime.environment(
            function: .generateQuestions, address: "127.0.0.1:9001", options: options, dynamoDBEndpoint: nil,
            logLevel: "warning", developmentJWKS: nil, shell: shell)
        if setting.passesFromShell {
            #expect(environment[setting.rawValue] == "from-the-shell")
        } else {
            #expect(environment[setting.rawValue] != "from-the-shell", "run-runtime's own or left out")
        }
        #expect(environment["INKRA_LLM_NOT_A_SETTING"] == nil)
        #expect(environment["HOME"] == "/home/dev")
    }

    @Test("The model endpoint's settings and recording are the ones a shell may pass")
    func allowedOnes() {
        let allowed = RuntimeSetting.allCases.filter(\.passesFromShell).map(\.rawValue).sorted()
        #expect(
            allowed == [
                "INKRA_LLM_API_KEY", "INKRA_LLM_API_KEY_SECRET_ARN", "INKRA_LLM_BASE_URL", "INKRA_LLM_MODEL",
                "INKRA_LLM_TIMEOUT", "INKRA_RECORD_EVENTS",
            ])
    }
}
