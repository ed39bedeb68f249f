import InkraCrypto

/// A secret only the server holds (a Secrets Manager secret in production,
/// `INKRA_SERVER_SECRET_ARN`), which keys everything the table and the logs keep of a caller's
/// values, so that neither a dump of the table nor the logs, nor both together, give back what
/// they stand for:
/// - the sealed answer of a call with an `Idempotency-Key` (its key derives from the client's key
///   *and* this secret);
/// - the keyed hash of a deleted account's email that carries the month's usage over to an account
///   signed up again with the same address;
/// - the pseudonym of each user id that names the user's partition (``userKey(_:)``), so the table
///   holds no id;
/// - the pseudonyms a recording (`INKRA_RECORD_EVENTS`) writes for user ids and idempotency keys.
///
/// Changing the secret makes every sealed answer unreadable (a retry of a call made before the
/// change runs as a new call), every carried usage unfindable and every user's partition another:
/// it is for the life of the table.
package struct ServerSecret: Sendable {
    /// The secret's bytes (its text's UTF-8).
    private let key: [UInt8]
    /// The key of ``userKey(_:)``, derived once: every call computes a user's partition.
    private let userIDKey: [UInt8]
    /// The last user's pseudonym: a call asks for it for each item of the user it reads or writes.
    private let lastUser = LastValue<String, String>()

    /// The fewest bytes a secret may have.
    package static let minimumBytes = 32

    /// A secret from its text (a Secrets Manager `SecretString`).
    /// - Returns: `nil` when the text has fewer than ``minimumBytes`` bytes of UTF-8.
    package init?(_ text: String) {
        guard text.utf8.count >= Self.minimumBytes else { return nil }
        key = Array(text.utf8)
        userIDKey = Self.derive(key, for: "user id")
    }

    /// The text of the fixed secret of local work (the emulator, its local runtimes, tests): public,
    /// so that what it keys can be replayed anywhere; template.yaml generates a random one instead.
    package static let developmentText = "inkra development secret: public, never for production"

    /// The fixed secret of local work (``developmentText``); a runtime outside Lambda uses it
    /// when no secret is set, and one inside Lambda never does.
    package static let development = ServerSecret(developmentText)!

    /// A key for one purpose, derived from the secret (HKDF-SHA256).
    func key(for purpose: String) -> [UInt8] { Self.derive(key, for: purpose) }

    private static func derive(_ key: [UInt8], for purpose: String) -> [UInt8] {
        HKDFSHA256.deriveKey(
            inputKeyMaterial: key, salt: "inkra server secret".utf8, info: purpose.utf8, outputByteCount: 32)
    }

    /// A keyed pseudonym of `value` for one purpose: the same value gives the same pseudonym under
    /// the same secret, and nothing about the value without it. 32 lowercase hex digits (128 bits).
    /// - Parameters:
    ///   - value: what the pseudonym stands for (a user id, an idempotency key).
    ///   - purpose: what it is for; pseudonyms of different purposes are unrelated.
    package func pseudonym(of value: String, purpose: String) -> String {
        Self.pseudonym(of: value, using: key(for: purpose))
    }

    private static func pseudonym(of value: String, using key: [UInt8]) -> String {
        let code = HMACSHA256.authenticationCode(for: value.utf8, key: key)
        return String(Hex.lowercase(code).prefix(32))
    }

    /// The keyed pseudonym that stands for a user id (a token's `sub`) in the table's partition keys
    /// and in recordings, the same in both so support can match them; only whoever holds the
    /// secret can compute it from an id (`inkra-emulator usage --user ID` does).
    package func userKey(_ userID: String) -> String {
        lastUser.value(for: userID) { Self.pseudonym(of: userID, using: userIDKey) }
    }

    /// The keyed hash that stands for an email address in the table: the address trimmed and
    /// lowercased (Cognito compares addresses without case), so `Ada@Example.com` and
    /// `ada@example.com` are one person; nothing else is folded (`ada+x@example.com` is another
    /// address).
    package func emailKey(_ email: String) -> String {
        pseudonym(of: email.trimmingSpaces().lowercased(), purpose: "email")
    }
}

/// Lowercase hexadecimal, for digests.
enum Hex {
    static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines (ASCII).
    fileprivate func trimmingSpaces() -> String {
        let bytes = Array(utf8)
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }),
            let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
