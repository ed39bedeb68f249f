import InkraHandlers

/// The instruction set Lambda runs the functions on (template.yaml's `Architecture` parameter):
/// it decides the price of a GB-second.
package enum LambdaArchitecture: String, CaseIterable, Sendable {
    /// Intel and AMD (`x86_64`); template.yaml's default.
    case x86 = "x86_64"
    /// Graviton.
    case arm64

    /// The price of a GB-second on this architecture.
    var gbSecondPrice: Prices.Name {
        switch self {
        case .x86: .lambdaGBSecondX86
        case .arm64: .lambdaGBSecondArm64
        }
    }
}

/// What template.yaml deploys that the bill depends on, held to the template by a test
/// (`CostTemplateTests`), as the emulator holds its other template values.
package enum TemplateSizing {
    /// Each function's `MemorySize`, in MB: the template's Globals give every function 256.
    package static func memoryMB(of function: FunctionName) -> Int {
        switch function {
        case .authorizer, .checkUsage, .generateQuestions, .deleteAccount, .repairCharges: 256
        }
    }

    /// The `Architecture` parameter's default.
    package static let architecture = LambdaArchitecture.x86
}
