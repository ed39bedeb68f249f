/// Why a token was refused. Callers answer every one of them with the same `Unauthorized`; the
/// reason is for logs only.
public struct AuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable reason code.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Not three base64url parts, or a header or payload that is not a JSON object.
        public static let malformed = Code(rawValue: "malformed")
        /// Longer than 8 KiB.
        public static let oversized = Code(rawValue: "oversized")
        /// `alg` is not RS256/RS384/RS512/ES256, or differs from the key's.
        public static let unsupportedAlgorithm = Code(rawValue: "unsupportedAlgorithm")
        /// No key with the token's `kid`.
        public static let unknownKey = Code(rawValue: "unknownKey")
        /// The signature does not verify.
        public static let badSignature = Code(rawValue: "badSignature")
        /// `iss` is not the configured pool.
        public static let wrongIssuer = Code(rawValue: "wrongIssuer")
        /// `token_use` is not the configured one.
        public static let wrongTokenUse = Code(rawValue: "wrongTokenUse")
        /// `client_id` or `aud` is not a configured client.
        public static let wrongAudience = Code(rawValue: "wrongAudience")
        /// `exp` has passed.
        public static let expired = Code(rawValue: "expired")
        /// `exp` is missing.
        public static let missingExpiry = Code(rawValue: "missingExpiry")
        /// `nbf` is in the future.
        public static let notYetValid = Code(rawValue: "notYetValid")
        /// `iat` is in the future.
        public static let issuedInFuture = Code(rawValue: "issuedInFuture")
        /// `sub` is missing or empty.
        public static let missingSubject = Code(rawValue: "missingSubject")
        /// The keys could not be fetched.
        public static let keysUnavailable = Code(rawValue: "keysUnavailable")
    }

    /// The reason.
    public var code: Code
    /// A message for logs, naming what is wrong.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// "`<code>`: `<message>`".
    public var description: String { "\(code.rawValue): \(message)" }
}
