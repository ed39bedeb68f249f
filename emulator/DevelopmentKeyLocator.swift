import EmulatorKit
import Foundation

/// Finds the development key pair shipped with the emulator (emulator/dev-keys).
enum DevelopmentKeyLocator {
    static func load() throws -> DevelopmentKey {
        if let bundled = Bundle.module.url(forResource: "dev-keys", withExtension: nil) {
            return try DevelopmentKey(directory: bundled)
        }
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("dev-keys")
        return try DevelopmentKey(directory: source)
    }
}
