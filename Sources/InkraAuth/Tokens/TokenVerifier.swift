import InkraJSON
import InkraTime
import Logging

/// Verifies Cognito user-pool tokens exactly as docs/functions.md describes: form, algorithm, signature by
/// the key whose `kid` the token names, issuer, token use, client, and time claims.
public struct TokenVerifier: Sendable {
    /// What tokens must satisfy.
    package let configuration: CognitoConfiguration
    let keys: any KeySource
    let now: @Sendable () -> Timestamp
    let logger: Logger

    /// The algorithms accepted; `none` and HMAC never are.
    static let algorithms: Set<String> = ["RS256", "RS384", "RS512", "ES256"]
    /// The algorithms accepted, for messages.
    static let algorithmList = algorithms.sorted().joined(separator: ", ")

    /// Creates a verifier.
    package init(
        configuration: CognitoConfiguration,
        keys: any KeySource,
        now: @escaping @Sendable () -> Timestamp,
        logger: Logger = Logger(label: "inkra.auth")
    ) {
        self.configuration = configuration
        self.keys = keys
        self.now = now
        self.logger = logger
    }

    /// Verifies a token (with or without its `Bearer ` prefix) and returns its claims.
    /// - Throws: ``AuthError`` with the reason. A bad token (logged here as refused) is answered
    ///   `Unauthorized` whatever the reason; ``AuthError/Code/keysUnavailable`` means the token could
    ///   not be checked, which the caller reports as its own failure (it is not logged here).
    package func verify(_ token: String) async throws(AuthError) -> CognitoClaims {
        try await verify(token, at: now())
    }

    /// Verifies a token as ``verify(_:)`` does, with its time claims checked at `instant` (the
    /// request's time) rather than at the verifier's clock.
    /// - Parameters:
    ///   - token: the token, with or without its `Bearer ` prefix.
    ///   - instant: the instant its time claims are checked at.
    ///   - scope: the request it is verified for: a key fetch it causes is a span of its trace.
    ///   - logger: the request's logger, which a refusal is logged through (so the line carries
    ///     the request's id); the verifier's own when `nil`.
    /// - Throws: ``AuthError`` with the reason, as ``verify(_:)``.
    package func verify(
        _ token: String, at instant: Timestamp, in scope: RequestScope = RequestScope(), logger: Logger? = nil
    ) async throws(AuthError) -> CognitoClaims {
        do {
            return try await check(token, at: instant, in: scope)
        } catch {
            if !error.isKeySourceFailure {
                (logger ?? self.logger).info(
                    "token refused", metadata: ["reason": "\(error.code)", "detail": "\(error.message)"])
            }
            throw error
        }
    }

    private func check(_ raw: String, at instant: Timestamp, in scope: RequestScope) async throws(AuthError)
        -> CognitoClaims
    {
        let token = try CompactToken(raw)
        guard let alg = token.header["alg"]?.string else { throw AuthError(.unsupportedAlgorithm, "header has no alg") }
        // Nothing of the unverified header goes into a message: it is the caller's text, logged.
        guard Self.algorithms.contains(alg) else {
            throw AuthError(.unsupportedAlgorithm, "header's alg is not one of \(Self.algorithmList)")
        }
        guard let kid = token.header["kid"]?.string, !kid.isEmpty, kid.utf8.count <= 256 else {
            throw AuthError(.unknownKey, "header has no usable kid")
        }
        let key: VerificationKey?
        do {
            key = try await keys.key(withID: kid, in: scope)
        } catch let error as AuthError where error.code == .unusableKey {
            throw AuthError(.unusableKey, error.message)
        } catch {
            // The source did not answer: the token is not known to be bad.
            throw AuthError(.keysUnavailable, "\(error)")
        }
        guard let key else { throw AuthError(.unknownKey, "no key of the pool has the header's kid") }
        // From here `kid` names one of the pool's keys, and `alg` is one of `algorithms`.
        guard let verifier = key.verifier(for: alg) else {
            throw AuthError(
                .unsupportedAlgorithm, "alg \(alg) does not match key \(kid) (\(key.algorithm ?? key.keyType))")
        }
        guard verifier.verify(token.signature, signs: token.signingInput) else {
            throw AuthError(.badSignature, "signature does not verify with key \(kid)")
        }
        return try claims(token.payload, at: instant.timeIntervalSince1970)
    }

    private func claims(_ payload: JSONObject, at instant: Double) throws(AuthError) -> CognitoClaims {
        let tolerance = configuration.clockTolerance
        guard let issuer = payload["iss"]?.string, issuer == configuration.issuer else {
            throw AuthError(
                .wrongIssuer, "iss is \(payload["iss"]?.jsonString ?? "missing"), not \(configuration.issuer)")
        }
        let use = payload["token_use"]?.string
        switch configuration.tokenUse {
        case .access, .id:
            guard use == configuration.tokenUse.rawValue else {
                throw AuthError(
                    .wrongTokenUse, "token_use is \(use ?? "missing"), not \(configuration.tokenUse.rawValue)")
            }
        case .any:
            guard use == "access" || use == "id" else {
                throw AuthError(.wrongTokenUse, "token_use is \(use ?? "missing"), not access or id")
            }
        }
        let clientId = payload["client_id"]?.string
        let audience: [String] =
            payload["aud"]?.string.map { [$0] } ?? payload["aud"]?.array?.compactMap(\.string) ?? []
        if !configuration.clientIds.isEmpty {
            let presented = use == "access" ? clientId.map { [$0] } ?? [] : audience
            guard presented.contains(where: configuration.clientIds.contains) else {
                throw AuthError(.wrongAudience, "\(use == "access" ? "client_id" : "aud") is not a configured client")
            }
        }
        guard let exp = payload["exp"]?.double else { throw AuthError(.missingExpiry, "exp is missing") }
        guard instant < exp + tolerance else {
            var error = AuthError(.expired, "expired at \(Int(exp))")
            // Signature, issuer, token use and client were verified: the claims of a token refused
            // for its expiry alone go with the error, for the recording of the refusal.
            if let subject = payload["sub"]?.string, !subject.isEmpty {
                error.verifiedClaims = Self.claims(
                    payload, subject: subject, issuer: issuer, use: use, clientId: clientId, audience: audience,
                    exp: exp)
            }
            throw error
        }
        if let nbf = payload["nbf"] {
            guard let value = nbf.double, value <= instant + tolerance else {
                throw AuthError(.notYetValid, "nbf is in the future")
            }
        }
        if let iat = payload["iat"] {
            guard let value = iat.double, value <= instant + tolerance else {
                throw AuthError(.issuedInFuture, "iat is in the future")
            }
        }
        guard let subject = payload["sub"]?.string, !subject.isEmpty else {
            throw AuthError(.missingSubject, "sub is missing or empty")
        }
        return Self.claims(
            payload, subject: subject, issuer: issuer, use: use, clientId: clientId, audience: audience, exp: exp)
    }

    /// `email` when `email_verified` says Cognito verified it (`true`, or the string `"true"` as
    /// some pools write it); an address a user typed and never confirmed names nobody.
    private static func verifiedEmail(_ payload: JSONObject) -> String? {
        guard let email = payload["email"]?.string, !email.isEmpty else { return nil }
        switch payload["email_verified"] {
        case .bool(true)?, .string("true")?: return email
        default: return nil
        }
    }

    /// The claims the functions use, from a payload whose signature and issuer were verified.
    private static func claims(
        _ payload: JSONObject, subject: String, issuer: String, use: String?, clientId: String?, audience: [String],
        exp: Double
    ) -> CognitoClaims {
        CognitoClaims(
            subject: subject,
            email: verifiedEmail(payload),
            tokenUse: use,
            clientId: clientId,
            audience: audience,
            issuer: issuer,
            expiresAt: Timestamp(timeIntervalSince1970: exp),
            issuedAt: payload["iat"]?.double.map(Timestamp.init(timeIntervalSince1970:)),
            groups: payload["cognito:groups"]?.array?.compactMap(\.string) ?? [],
            subscriptionTier: payload["custom:subscription_tier"]?.string.flatMap { $0.isEmpty ? nil : $0 },
            customTier: payload["custom:tier"]?.string.flatMap { $0.isEmpty ? nil : $0 },
            monthlyQuota: CognitoClaims.positiveInteger(payload["custom:monthly_quota"])
        )
    }
}
