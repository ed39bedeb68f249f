import CoreMetrics
import InkraAuth
import InkraJSON
import InkraTime
import InkraUsage
import Logging

/// `authorizer`: verifies the caller's Cognito token for API Gateway and describes the caller in
/// the context the other functions read.
///
/// It tells a bad token from one it cannot check. A bad token (malformed, forged, expired, foreign,
/// or naming a `kid` that a freshly fetched JWKS does not have) is refused: `Unauthorized`, which
/// API Gateway answers 401, or `{"isAuthorized":false}` for HTTP API simple responses. When the key
/// source cannot answer (the JWKS unreachable, too slow, answering an HTTP error, or not a JWKS),
/// the invocation fails with `FunctionError.keySourceUnavailable(_:)` instead, which API Gateway
/// answers 500 (`AUTHORIZER_CONFIGURATION_ERROR`), so the app retries rather than signing its user
/// out; the failure is counted as `AuthorizerKeySourceFailure` and logged, never with the token.
public struct Authorizer: EventHandler {
    let verifier: TokenVerifier
    let blockedGroup: String
    let simpleResponses: Bool
    let metrics: any MetricsFactory

    /// Creates the function.
    /// - Parameters:
    ///   - verifier: checks tokens.
    ///   - blockedGroup: members of this Cognito group get a `Deny` policy.
    ///   - simpleResponses: answer HTTP API 2.0 events with `{"isAuthorized":…}` rather than a policy.
    ///   - metrics: where `AuthFailure` and `AuthorizerKeySourceFailure` are counted (the process's
    ///     metrics system unless another is given).
    public init(
        verifier: TokenVerifier,
        blockedGroup: String = "blocked",
        simpleResponses: Bool = true,
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.verifier = verifier
        self.blockedGroup = blockedGroup
        self.simpleResponses = simpleResponses
        self.metrics = metrics
    }

    /// Verifies the event's token at the context's time.
    public func handle(_ event: JSONValue, context: InvocationContext) async throws(FunctionError) -> JSONValue {
        try await explained(event, context: context).answer.get()
    }

    /// The authorizer's answer, and why it refused (or denied) when it did: a reason code such as
    /// `expired`, `issuedInFuture`, `wrongIssuer`, `unknownKey`, `noToken` or `blocked`, for the
    /// emulator's lines (never the token or anything read from it).
    package func explained(
        _ event: JSONValue, context: InvocationContext
    ) async -> (answer: Result<JSONValue, FunctionError>, refusal: String?) {
        let examination = await examined(event, context: context)
        return (examination.answer, examination.refusal)
    }

    /// What one invocation decided, for its recording (`INKRA_RECORD_EVENTS`) and the emulator.
    package struct Examination: Sendable {
        /// The answer, as ``handle(_:context:)`` gives it.
        package var answer: Result<JSONValue, FunctionError>
        /// Why it refused or denied, as ``explained(_:context:)`` says.
        package var refusal: String?
        /// The token's claims when its signature and issuer were verified: accepted, or refused
        /// for its expiry alone (``AuthError/verifiedClaims``). `nil` for any other token, so
        /// nothing read from an unverified token is kept.
        package var claims: CognitoClaims?
    }

    /// The answer, why it refused, and the claims it verified (see ``Examination``).
    package func examined(_ event: JSONValue, context: InvocationContext) async -> Examination {
        var refusal: String?
        var claims: CognitoClaims?
        do throws(FunctionError) {
            let answer = try await authorize(event, invocation: context, refusal: &refusal, claims: &claims)
            return Examination(answer: .success(answer), refusal: refusal, claims: claims)
        } catch {
            return Examination(answer: .failure(error), refusal: refusal, claims: claims)
        }
    }

    /// - Parameters:
    ///   - refusal: set to the reason when the token is refused or the caller denied.
    ///   - verified: set to the token's claims once its signature and issuer are verified.
    private func authorize(
        _ event: JSONValue, invocation: InvocationContext, refusal: inout String?,
        claims verified: inout CognitoClaims?
    ) async throws(FunctionError) -> JSONValue {
        let logger = invocation.logger
        let request = try AuthorizerRequest(event: event)
        let simple = request.kind == .httpV2 && simpleResponses
        guard let token = request.token, !token.isEmpty else {
            logger.info("refused: no token in the event", metadata: ["kind": "\(request.kind.rawValue)"])
            refusal = "noToken"
            return try refuse(simple)
        }
        let claims: CognitoClaims
        do {
            claims = try await verifier.verify(
                token, at: invocation.time, in: invocation.scope, logger: invocation.logger)
        } catch let error where error.isKeySourceFailure {
            // Not the token's fault: fail, so API Gateway answers 500 and the app retries.
            MetricName.authorizerKeySourceFailure.increment(in: metrics)
            logger.error(
                "cannot check the token: the key source did not answer",
                metadata: ["kind": "\(request.kind.rawValue)", "detail": "\(error.message)"])
            throw FunctionError.keySourceUnavailable(error.message)
        } catch {
            logger.info("refused: \(error)", metadata: ["kind": "\(request.kind.rawValue)"])
            refusal = error.code.rawValue
            verified = error.verifiedClaims
            return try refuse(simple)
        }
        verified = claims
        let caller = CallerIdentity(
            userID: claims.subject,
            email: claims.email,
            tier: claims.tier,
            monthlyQuota: claims.monthlyQuota,
            groups: claims.groups
        )
        let allowed = !caller.groups.contains(blockedGroup)
        if !allowed {
            logger.warning("denied: user is in the blocked group", metadata: ["user": "\(caller.userID)"])
            refusal = "blocked"
        }
        let context = self.context(for: caller)
        if simple {
            return allowed ? ["isAuthorized": true, "context": .object(context)] : ["isAuthorized": false]
        }
        guard let arn = request.resourceArn, let resource = Self.stageWide(arn) else {
            logger.info("refused: the event has no usable methodArn or routeArn")
            refusal = "noResourceArn"
            throw FunctionError.unauthorized
        }
        return [
            "principalId": .string(caller.userID),
            "policyDocument": [
                "Version": "2012-10-17",
                "Statement": [
                    [
                        "Action": "execute-api:Invoke",
                        "Effect": allowed ? "Allow" : "Deny",
                        "Resource": .string(resource),
                    ]
                ],
            ],
            "context": .object(context),
        ]
    }

    private func refuse(_ simple: Bool) throws(FunctionError) -> JSONValue {
        MetricName.authFailure.increment(in: metrics)
        if simple { return ["isAuthorized": false] }
        throw FunctionError.unauthorized
    }

    /// What API Gateway passes on: strings and numbers only. The tier, never its limits: API
    /// Gateway caches this context (up to the authorizer's TTL), and the functions hold the limits
    /// in force themselves (`TierLimits`, refreshed per `INKRA_LIMITS_MAX_AGE`). `quota` is the
    /// user's own `custom:monthly_quota`, a claim of the token, when it has one.
    private func context(for caller: CallerIdentity) -> JSONObject {
        var context = JSONObject()
        context["userId"] = .string(caller.userID)
        if let email = caller.email { context["email"] = .string(email) }
        context["tier"] = .string(caller.tier.rawValue)
        if let quota = caller.monthlyQuota { context["quota"] = .number(quota) }
        return context
    }

    /// The method or route ARN widened to every method and path of its stage, so API Gateway may
    /// cache the policy for the caller's other requests:
    /// `arn:aws:execute-api:region:account:api/stage/GET/usage` → `…:api/stage/*/*`.
    static func stageWide(_ arn: String) -> String? {
        // One pass over the bytes (this runs for every authorized request): the fields up to the
        // fifth colon, then `api/stage` after it.
        let bytes = arn.utf8
        var colons = 0
        var fieldStart = bytes.startIndex
        var index = bytes.startIndex
        while colons < 5 {
            guard index != bytes.endIndex else { return nil }
            if bytes[index] == UInt8(ascii: ":") {
                colons += 1
                let field = arn[fieldStart..<index]
                if colons == 1, field != "arn" { return nil }
                if colons == 3, field != "execute-api" { return nil }
                fieldStart = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        let rest = bytes[fieldStart...]
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")), slash != fieldStart else { return nil }
        let stageStart = bytes.index(after: slash)
        let stageEnd = rest[stageStart...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
        guard stageEnd != stageStart else { return nil }
        return arn[..<stageEnd] + "/*/*"
    }
}

extension FunctionError {
    /// The authorizer could not check a token because its key source did not answer. Any error but
    /// `Unauthorized` fails a Lambda authorizer: API Gateway answers 500 (the
    /// `AUTHORIZER_CONFIGURATION_ERROR` gateway response) rather than 401, so the client retries
    /// instead of discarding its tokens.
    /// - Parameter detail: what the key source said (the URL and the cause; never the token).
    package static func keySourceUnavailable(_ detail: String) -> FunctionError {
        FunctionError(errorType: "KeySourceUnavailable", errorMessage: "cannot check tokens: \(detail)")
    }
}
