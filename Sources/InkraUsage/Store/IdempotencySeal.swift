import HTTPText
import InkraCrypto

/// What the table keeps of an `Idempotency-Key`, and how: never the key, the body or the answer
/// in the clear.
///
/// Every secret is derived (HKDF-SHA256, salted with the user id) from the client's key, which
/// the table never holds, keyed with the ``ServerSecret``, which neither the table nor the logs
/// hold (so a recording that held the client's key would still open nothing):
/// - the record's sort key holds a digest of it, so a repeat finds its record;
/// - the request body is kept as an HMAC under a derived key, enough to tell a reused key with
///   another body (422) from a repeat, and nothing to a reader of the table;
/// - the completed answer (the generated questions, which quote the topic) is sealed with
///   AES-GCM under another derived key, so a dump or a backup of the table reveals no question.
struct IdempotencySeal {
    /// The digest that names the record (`IDEMPOTENCY#<id>`), in lowercase hex.
    let recordID: String
    private let sealingKey: [UInt8]
    private let fingerprintKey: [UInt8]

    init(key: String, userID: String, secret server: ServerSecret) {
        let secret = HMACSHA256.authenticationCode(for: key.utf8, key: server.key(for: "idempotency"))
        let salt = Array("inkra idempotency \(userID)".utf8)
        func derive(_ purpose: String) -> [UInt8] {
            HKDFSHA256.deriveKey(inputKeyMaterial: secret, salt: salt, info: purpose.utf8, outputByteCount: 32)
        }
        recordID = Hex.lowercase(derive("record id"))
        sealingKey = derive("response")
        fingerprintKey = derive("request body")
    }

    /// The body's keyed digest, in lowercase hex.
    func fingerprint(of body: [UInt8]) -> String {
        Hex.lowercase(HMACSHA256.authenticationCode(for: body, key: fingerprintKey))
    }

    /// The response sealed for storage: base64 of AES-GCM's nonce, ciphertext and tag over
    /// `<status> <body>`.
    func seal(_ response: StoredResponse) throws -> String {
        let plain = Array("\(response.statusCode) \(response.body)".utf8)
        return Base64.encode(try AES256GCM.seal(plain, key: sealingKey))
    }

    /// The stored response, or `nil` when the text was not sealed under this key.
    func open(_ sealed: String) -> StoredResponse? {
        guard let combined = Base64.decode(sealed),
            let plain = AES256GCM.open(combined, key: sealingKey),
            let text = String(validating: plain, as: UTF8.self),
            let space = text.firstIndex(of: " "),
            let status = Int(text[..<space])
        else { return nil }
        return StoredResponse(statusCode: status, body: String(text[text.index(after: space)...]))
    }
}
