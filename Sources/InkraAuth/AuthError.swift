/// Why a token was not accepted. Two kinds, which callers must answer differently:
///
/// - the token is bad (every code but ``Code/keysUnavailable``): the caller answers `Unauthorized`
///   whatever the reason, which is for logs only;
/// - the token could not be checked (``Code/keysUnavailable``: the key source did not answer): the
///   token may be good, so the caller fails rather than refuses, and the client retries instead of
///   signing its user out.
package struct AuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable reason code.
    package struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        package var rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }
        package var description: String { rawValue }

        /// Not three base64url parts, or a header or payload that is not a JSON object.
        package static let malformed = Code(rawValue: "malformed")
        /// Longer than 8 KiB.
        package static let oversized = Code(rawValue: "oversized")
        /// `alg` is not RS256/RS384/RS512/ES256, or differs from the key's.
        package static let unsupportedAlgorithm = Code(rawValue: "unsupportedAlgorithm")
        /// No key with the token's `kid`, in keys the source has (for a remote source: in a JWKS
        /// fetched afresh for this `kid`, or within the refetch penalty after one).
        package static let unknownKey = Code(rawValue: "unknownKey")
        /// The key with the token's `kid` cannot verify anything (an RSA modulus under 2048 bits, a
        /// point not on P-256): the source answered, with a key no token can be checked against.
        package static let unusableKey = Code(rawValue: "unusableKey")
        /// The signature does not verify.
        package static let badSignature = Code(rawValue: "badSignature")
        /// `iss` is not the configured pool.
        package static let wrongIssuer = Code(rawValue: "wrongIssuer")
        /// `token_use` is not the configured one.
        package static let wrongTokenUse = Code(rawValue: "wrongTokenUse")
        /// `client_id` or `aud` is not a configured client.
        package static let wrongAudience = Code(rawValue: "wrongAudience")
        /// `exp` has passed.
        package static let expired = Code(rawValue: "expired")
        /// `exp` is missing.
        package static let missingExpiry = Code(rawValue: "missingExpiry")
        /// `nbf` is in the future.
        package static let notYetValid = Code(rawValue: "notYetValid")
        /// `iat` is in the future.
        package static let issuedInFuture = Code(rawValue: "issuedInFuture")
        /// `sub` is missing or empty.
        package static let missingSubject = Code(rawValue: "missingSubject")
        /// The key source could not answer (the JWKS unreachable, too slow, answering an HTTP error,
        /// or not a JWKS): the token was not checked, so it is not known to be bad.
        package static let keysUnavailable = Code(rawValue: "keysUnavailable")

        // A key source's own failures, which the verifier turns into ``keysUnavailable`` (or, for
        // ``unusableKey``, passes on).

        /// The JWKS could not be fetched: no connection, no answer in time, an HTTP error status.
        package static let jwksUnreachable = Code(rawValue: "jwksUnreachable")
        /// A JWKS file cannot be read.
        package static let jwksUnreadable = Code(rawValue: "jwksUnreadable")
        /// The document read or fetched is not a JWKS (not JSON, or no `keys` array).
        package static let notJWKS = Code(rawValue: "notJWKS")

        /// A development token's claims do not fit Cognito's claim set for its token use (an email
        /// or a custom attribute in an access token, a token use other than `id` or `access`).
        package static let unsupportedClaim = Code(rawValue: "unsupportedClaim")
    }

    /// The reason.
    package var code: Code
    /// A message for logs, naming what is wrong.
    package var message: String
    /// The claims of a token refused only for its time: ``Code/expired``, after its signature,
    /// issuer, token use and client were verified (and it names a subject). `nil` for every other
    /// refusal, so nothing read from an unverified token leaves the verifier. Never in
    /// ``description``.
    package var verifiedClaims: CognitoClaims? {
        get { expiredClaims?.claims }
        set { expiredClaims = newValue.map(ExpiredClaims.init) }
    }
    /// ``verifiedClaims`` behind one reference: the error is thrown (typed) from every check of
    /// the verifier, and a dozen claims held inline made each throw site copy and destroy them
    /// all: 8 KB more in the packaged zip, whose budget is 9 MB.
    private var expiredClaims: ExpiredClaims?

    /// Creates an error.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Whether the token could not be checked because the key source did not answer, rather than
    /// being bad: a failure to report, never a refusal.
    package var isKeySourceFailure: Bool { code == .keysUnavailable }

    /// "`<code>`: `<message>`".
    package var description: String { "\(code.rawValue): \(message)" }
}

/// The claims an `expired` refusal carries, held by reference (``AuthError/verifiedClaims``).
private final class ExpiredClaims: Sendable, Hashable {
    let claims: CognitoClaims

    init(_ claims: CognitoClaims) { self.claims = claims }

    static func == (lhs: ExpiredClaims, rhs: ExpiredClaims) -> Bool { lhs.claims == rhs.claims }

    func hash(into hasher: inout Hasher) { hasher.combine(claims) }
}
