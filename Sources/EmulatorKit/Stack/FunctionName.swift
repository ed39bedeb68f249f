/// The functions of the stack, by their deployed names.
package enum FunctionName: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case authorizer
    case checkUsage
    case generateQuestions
    case deleteAccount
    case repairCharges

    /// Every name, for messages and help: "authorizer, checkUsage, generateQuestions, deleteAccount
    /// or repairCharges".
    package static let names =
        allCases.dropLast().map(\.rawValue).joined(separator: ", ") + " or " + (allCases.last?.rawValue ?? "")

    /// The name as written in events folders, flags and `_HANDLER`.
    package var description: String { rawValue }

    /// A function from its name, ignoring case (`generatequestions`, `GenerateQuestions`).
    package init?(caseInsensitive name: String) {
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
            return nil
        }
        self = match
    }
}
