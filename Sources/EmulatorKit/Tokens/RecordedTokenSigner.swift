import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTime
import Synchronization

/// `replay` over a folder imported with `import --with-tokens`: signs, with the development key,
/// a token carrying the claims the authorizer verified when the traffic was recorded
/// (``RecordedTokens``), and puts it where the request carried its own, so the event runs through
/// the authorizer and its cache as any event with a token does.
///
/// - A function's event whose authorizer section names a user with recorded claims: the claims
///   are those of the user's latest authorizer recording at or before the event's instant that
///   let the caller through; the
///   section is removed and the token goes in its `Authorization` header.
/// - An authorizer event `import --with-tokens` wrote from an authorizer recording
///   (`x-inkra-recorded-token`: the user and the recording's request id): the token goes in
///   `authorizationToken` (or `identitySource` for HTTP API).
///
/// The token is Cognito's claim set for its `token_use` with the recorded `iat` and `exp`, the
/// recorded groups, tier attributes and monthly quota, under the development issuer and client, and
/// no email; its `jti` is the authorizer recording's request id, so one recording always signs to
/// the same token, and the authorizer cache serves the events that token served when recorded.
package final class RecordedTokenSigner: Sendable {
    /// The field of an imported authorizer event that names its recording.
    package static let recordedTokenField = "x-inkra-recorded-token"

    let tokens: RecordedTokens
    let key: DevelopmentKey
    let configuration: CognitoConfiguration
    private let signed = Mutex<[String: String]>([:])

    /// A signer of recorded claims.
    /// - Parameters:
    ///   - tokens: the recorded claims.
    ///   - key: the development key.
    ///   - configuration: what the replaying stack's authorizer trusts: its issuer and first client.
    package init(tokens: RecordedTokens, key: DevelopmentKey, configuration: CognitoConfiguration) {
        self.tokens = tokens
        self.key = key
        self.configuration = configuration
    }

    /// The event with a signed token instead of its injected authorizer section (or its recorded
    /// token reference), or `nil` when no recorded claims apply to it.
    /// - Parameters:
    ///   - event: the event as read.
    ///   - function: the function it is for.
    ///   - time: its recorded instant.
    /// - Throws: ``EmulatorError`` when an authorizer event names a recording `.inkra-tokens.json` does not
    ///   hold, or the claims cannot be signed.
    package func signing(_ event: JSONValue, function: FunctionName, at time: Timestamp?) throws(EmulatorError)
        -> JSONValue?
    {
        if function == .authorizer {
            guard let reference = event[Self.recordedTokenField] else { return nil }
            guard let user = reference["user"]?.string, let requestID = reference["requestId"]?.string,
                let entry = tokens.entry(for: user, requestID: requestID)
            else {
                throw EmulatorError(
                    "\(Self.recordedTokenField) names a recording \(RecordedTokens.fileName) does not hold")
            }
            let token = "Bearer " + (try self.token(for: user, entry))
            var event = event
            event.set(nil, at: [Self.recordedTokenField])
            if event["identitySource"]?.array != nil {
                event.set([.string(token)], at: ["identitySource"])
                event.set(.string(token), at: ["headers", "authorization"])
            } else {
                event.set(.string(token), at: ["authorizationToken"])
            }
            return event
        }
        guard let time, let authorizer = event["requestContext"]?["authorizer"], let user = Self.user(in: authorizer),
            let entry = tokens.entry(for: user, admittedAtOrBefore: Recording.milliseconds(of: time))
        else { return nil }
        let token = "Bearer " + (try self.token(for: user, entry))
        var event = event
        event.set(nil, at: ["requestContext", "authorizer"])
        let v2 = event["version"]?.string == "2.0"
        for section in ["headers", "multiValueHeaders"] {
            guard section == "headers" || event[section]?.object != nil else { continue }
            let headers = event[section]?.object ?? JSONObject()
            let name =
                headers.pairs.first { $0.key.lowercased() == "authorization" }?.key
                ?? (v2 ? "authorization" : "Authorization")
            event.set(section == "headers" ? .string(token) : [.string(token)], at: [section, name])
        }
        return event
    }

    /// The user an injected authorizer section names: REST's `principalId` or `userId` (or Cognito
    /// claims' `sub`), HTTP API's `lambda.userId` (or `jwt.claims.sub`).
    static func user(in authorizer: JSONValue) -> String? {
        let candidates = [
            authorizer["principalId"], authorizer["userId"], authorizer["lambda"]?["userId"],
            authorizer["claims"]?["sub"], authorizer["jwt"]?["claims"]?["sub"],
        ]
        return candidates.lazy.compactMap { $0?.string }.first { !$0.isEmpty && $0 != RecordingRedaction.marker }
    }

    /// The token of one recording, signed once.
    private func token(for user: String, _ entry: RecordedTokens.Entry) throws(EmulatorError) -> String {
        let id = "\(user) \(entry.requestID) \(entry.epochMilliseconds)"
        if let known = signed.withLock({ $0[id] }) { return known }
        let token: String
        do {
            token = try key.signer.sign(claims(for: user, entry))
        } catch {
            throw EmulatorError("cannot sign the recorded claims of \(user): \(error)")
        }
        signed.withLock { $0[id] = token }
        return token
    }

    /// Cognito's claim set for the recorded token use (``DevelopmentClaims``), with the recorded
    /// times, groups, tier and quota, no email, and the recording's request id as `jti`, so one
    /// recording signs one token (API Gateway's cache key).
    package func claims(for user: String, _ entry: RecordedTokens.Entry) -> DevelopmentClaims {
        let recorded = entry.claims
        let exp = recorded["exp"]?.double ?? 0
        var claims = DevelopmentClaims(
            sub: user, tokenUse: recorded["token_use"]?.string ?? configuration.tokenUse.rawValue,
            clientId: configuration.clientIds.first ?? DevelopmentKey.clientID, issuer: configuration.issuer,
            issuedAt: Timestamp(timeIntervalSince1970: recorded["iat"]?.double ?? exp),
            expiresAt: Timestamp(timeIntervalSince1970: exp))
        claims.jti = entry.requestID
        claims.groups = recorded["cognito:groups"]?.array?.compactMap(\.string) ?? []
        // Cognito writes every custom attribute as a string.
        claims.subscriptionTier = recorded["custom:subscription_tier"]?.scalarText
        claims.customTier = recorded["custom:tier"]?.scalarText
        claims.monthlyQuota = recorded["custom:monthly_quota"]?.scalarText
        return claims
    }
}
