import InkraAuth
import InkraHandlers
import InkraUsage
import Logging

/// The functions a runtime serves, by the name `_HANDLER` gives: for each, how to build it from
/// the dependencies the runtime reads from its settings (docs/configuration.md).
///
/// Adding a function is one type (an `EventHandler`) and one line here:
///
/// ```swift
/// let functions = FunctionList.standard.adding("exportUsage") { dependencies in
///     ExportUsage(store: try await dependencies.usageStore())
/// }
/// ```
///
/// A function reads the request from its `InvocationContext`: it calls its store bound to the
/// context (`store.bound(to: context)`, within the invocation's deadlines) and logs through the
/// context's logger, as the built-in functions do.
public struct FunctionList: Sendable {
    /// Builds a function from the runtime's dependencies, once at start-up (and again with new
    /// tier limits when `INKRA_LIMITS_PARAMETER` changes them).
    public typealias Build = @Sendable (Dependencies) async throws -> any EventHandler

    /// The names, in order, and how to build each.
    let entries: [(name: String, build: Build)]

    /// A list of functions.
    /// - Parameter entries: each function's `_HANDLER` name and how to build it.
    public init(_ entries: KeyValuePairs<String, Build>) {
        self.entries = entries.map { (name: $0.key, build: $0.value) }
    }

    private init(entries: [(name: String, build: Build)]) {
        self.entries = entries
    }

    /// This list and one more function.
    /// - Parameters:
    ///   - name: its `_HANDLER` name.
    ///   - build: how to build it.
    /// - Returns: the longer list.
    public func adding(_ name: String, _ build: @escaping Build) -> FunctionList {
        FunctionList(entries: entries + [(name: name, build: build)])
    }

    /// The Inkra API's functions, as template.yaml deploys them.
    public static let standard = FunctionList([
        "authorizer": { Authorizer(verifier: try $0.tokenVerifier()) },
        "checkUsage": { CheckUsage(store: try await $0.usageStore(), limits: $0.limits) },
        "generateQuestions": {
            GenerateQuestions(
                store: try await $0.usageStore(), generator: try await $0.questionGenerator(), limits: $0.limits,
                upgradeURL: $0.upgradeURL)
        },
        "deleteAccount": {
            DeleteAccount(store: try await $0.usageStore(), users: try $0.userDirectory())
        },
        "repairCharges": { RepairCharges(store: try await $0.usageStore()) },
    ])

    /// The names, in order.
    package var names: [String] { entries.map(\.name) }

    /// "authorizer, checkUsage, generateQuestions, deleteAccount or repairCharges", for messages.
    var nameList: String {
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " or " + last
    }

    /// The listed name `handler` names: its last `.`-separated part (`bootstrap.checkUsage`),
    /// ignoring case; `nil` when it names none.
    func name(matching handler: String) -> String? {
        let name = handler.split(separator: ".").last.map(String.init) ?? handler
        return names.first { $0.lowercased() == name.lowercased() }
    }

    /// How to build the function `name` (as listed).
    func build(_ name: String) -> Build? {
        entries.first { $0.name == name }?.build
    }
}
