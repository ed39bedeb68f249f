import Crypto
import CryptoExtras
import Foundation

/// A password kept as a salted, slow hash: PBKDF2-HMAC-SHA256, 16 random bytes of salt, a 32-byte
/// key. The pool never keeps a password itself.
struct PasswordHash: Sendable, Hashable {
    /// The salt, base64.
    var salt: String
    /// The derived key, base64.
    var hash: String
    /// PBKDF2's rounds.
    var rounds: Int

    /// Whether a password is the one hashed, compared in constant time.
    func matches(_ password: String) -> Bool {
        guard let salt = Data(base64Encoded: salt), let expected = Data(base64Encoded: hash) else { return false }
        let derived = Self.derive(password, salt: Array(salt), rounds: rounds)
        guard derived.count == expected.count else { return false }
        return zip(derived, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func derive(_ password: String, salt: [UInt8], rounds: Int) -> [UInt8] {
        // `unsafeUncheckedRounds` lets tests use fewer rounds than the 210,000 floor; the pool's
        // settings never go below it.
        let key = try? KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: 32,
            unsafeUncheckedRounds: max(rounds, 1))
        return key?.withUnsafeBytes { Array($0) } ?? []
    }
}

extension PasswordHash {
    /// Hashes a password with a fresh salt.
    init(password: String, rounds: Int, using generator: inout some RandomNumberGenerator) {
        let salt = UserPool.randomBytes(16, &generator)
        self.salt = Data(salt).base64EncodedString()
        self.rounds = rounds
        hash = Data(Self.derive(password, salt: salt, rounds: rounds)).base64EncodedString()
    }
}
