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
    /// Every function's `MemorySize`, in MB: the template's Globals give each 256 and none sets
    /// its own (the test checks each function).
    package static let memoryMB = 256

    /// The `Architecture` parameter's default.
    package static let architecture = LambdaArchitecture.x86
}
