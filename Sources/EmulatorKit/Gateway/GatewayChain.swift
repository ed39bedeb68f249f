import Foundation
import InkraHandlers
import InkraJSON
import InkraTime

/// Runs a function elsewhere: given the function, the event and its recorded time, the result —
/// or `nil` to run the function in-process.
package typealias FunctionTarget = @Sendable (FunctionName, JSONValue, Timestamp?) async -> Invocation?

/// API Gateway's part of a request: the authorizer in front of the function, its answer turned
/// into 401 / 403 or injected into the event as API Gateway injects it.
package struct GatewayChain: Sendable {
    let stack: EmulatorStack
    /// Runs a function somewhere else than in-process (a real runtime behind the local Runtime
    /// API); `nil` from it means "run it in-process".
    var target: FunctionTarget?
    /// The event's recorded time, passed on to a real runtime.
    var recordedTime: Timestamp?
    /// API Gateway's authorizer cache, when answers are cached per token.
    var authorizerCache: AuthorizerCache?
    /// Whether a REST API's request models (``RequestModel/byFunction``) are checked after the
    /// authorizer allowed the caller, as template.yaml's request validator checks them.
    var validatesBodies = false

    /// The chain with its authorizer's answers cached per token, as a deployed API caches them.
    package func caching(in cache: AuthorizerCache) -> GatewayChain {
        var chain = self
        chain.authorizerCache = cache
        return chain
    }

    /// The chain with API Gateway's request validator in front of the functions: on a REST API
    /// (payload 1.0; an HTTP API has no request validation) a body its route's model refuses is
    /// answered 400 without invoking the function.
    package func validatingBodies() -> GatewayChain {
        var chain = self
        chain.validatesBodies = true
        return chain
    }

    /// The chain with functions run elsewhere when `target` says so (a runtime behind the local
    /// Runtime API).
    package func running(on target: @escaping FunctionTarget) -> GatewayChain {
        var chain = self
        chain.target = target
        return chain
    }

    private func run(_ function: FunctionName, _ event: JSONValue, at time: Timestamp?) async -> Invocation {
        if let target, let result = await target(function, event, recordedTime) { return result }
        return await Invocation.run(stack.handler(for: function), event, context: stack.context(at: time))
    }

    /// Runs the authorizer on its event: its answer, and why it refused when it ran in-process
    /// (a runtime behind the Runtime API answers only `Unauthorized`).
    /// The run's duration is `nil` when a runtime elsewhere answered.
    private func runAuthorizer(
        _ event: JSONValue, at time: Timestamp?
    ) async -> (Invocation.Outcome, refusal: String?, duration: Duration?) {
        if let target, let result = await target(.authorizer, event, recordedTime) {
            return (result.outcome, nil, nil)
        }
        guard let authorizer = stack.handler(for: .authorizer) as? PoolRoutingAuthorizer else {
            let result = await run(.authorizer, event, at: time)
            return (result.outcome, nil, result.duration)
        }
        let started = ContinuousClock.now
        let (answer, refusal) = await authorizer.explained(event, context: stack.context(at: time))
        let duration = ContinuousClock.now - started
        switch answer {
        case .success(let json): return (.success(json), refusal, duration)
        case .failure(let error): return (.failure(error), refusal, duration)
        }
    }

    /// Runs one event through the chain API Gateway would run for a function.
    ///
    /// For `checkUsage` and `generateQuestions`: an event that already carries an authorizer
    /// section naming a caller goes straight to the function (a section naming none, such as SAM's
    /// placeholder claims, counts as absent); one with an `Authorization` header goes through
    /// `authorizer` first; one with neither is refused with 401 as API Gateway refuses a request
    /// without its identity source. For `authorizer` and `repairCharges`, the event goes to it alone.
    /// In-process functions run at `time` (a replayed event's recorded time, the request's time
    /// under `serve`), else at the stack's ``EmulatorStack/now()``.
    package func invoke(_ function: FunctionName, event: JSONValue, at time: Timestamp? = nil) async -> Invocation {
        let time = time ?? stack.now()
        // The authorizer, and repairCharges (invoked by its schedule, not through API Gateway),
        // take their events alone.
        if function == .authorizer {
            let (outcome, refusal, duration) = await runAuthorizer(event, at: time)
            var result = Invocation(outcome: outcome)
            result.refusal = refusal
            result.duration = duration
            return result
        }
        // A section that names a caller is what an authorizer said: the function takes it as it is.
        // One that names none (`sam local generate-event`'s placeholder claims) does not skip the chain.
        guard function != .repairCharges, let proxy = try? ProxyRequest(event: event),
            CallerIdentity(authorizer: proxy.authorizer) == nil
        else { return await run(function, event, at: time) }
        guard let token = proxy.header("Authorization"), !token.isEmpty else {
            // API Gateway refuses a request without its identity source before any authorizer runs.
            var result = Invocation(outcome: .success(Self.gatewayResponse(401, "Unauthorized", proxy.version)))
            result.refusal = "noToken"
            return result
        }
        let resource = AuthorizerEvents.resourceArn(for: proxy)
        let step: AuthorizerStep
        let decision: Decision
        var refusal: String?
        if let authorizerCache {
            var sent: JSONValue?
            var ran: Duration?
            // Each API's authorizer has a cache of its own: a REST API's answer never serves an HTTP
            // API's request (a recording may hold both), so the key is the API's and the token.
            let api = proxy.requestContext?["apiId"]?.scalarText ?? ""
            let answer = await authorizerCache.answer(
                for: "\(proxy.version == .v1 ? "rest" : "http") \(api) \(token)", at: time,
                decisionKey: DecisionKey(resource: resource, version: proxy.version)
            ) {
                let event = AuthorizerEvents.event(for: proxy, token: token, resourceArn: resource)
                sent = event
                let (outcome, reason, duration) = await runAuthorizer(event, at: time)
                ran = duration
                return (outcome, reason)
            } decide: { outcome in
                Self.decision(outcome, proxy: proxy, resource: resource)
            }
            step = AuthorizerStep(event: sent, result: answer.outcome, cached: answer.cached, duration: ran)
            decision = answer.decision
            refusal = answer.refusal
        } else {
            let event = AuthorizerEvents.event(for: proxy, token: token, resourceArn: resource)
            let outcome: Invocation.Outcome
            let duration: Duration?
            (outcome, refusal, duration) = await runAuthorizer(event, at: time)
            step = AuthorizerStep(event: event, result: outcome, duration: duration)
            decision = Self.decision(step.result, proxy: proxy, resource: resource)
        }
        var result: Invocation
        switch decision {
        case .allow(let context, let principal):
            // API Gateway validates the request once the authorizer let it through, before the
            // integration ("Request validation for REST APIs in API Gateway").
            if validatesBodies, proxy.version == .v1, let model = RequestModel.byFunction[function],
                !model.accepts(body: (try? proxy.bodyBytes()) ?? [], contentType: proxy.header("Content-Type"))
            {
                result = Invocation(outcome: .success(Self.gatewayResponse(400, "Invalid request body", proxy.version)))
                result.bodyRefused = true
            } else {
                let injected = Self.inject(context, principal: principal, into: event, version: proxy.version)
                result = await run(function, injected, at: time)
            }
        case .refuse(let status, let message):
            result = Invocation(outcome: .success(Self.gatewayResponse(status, message, proxy.version)))
        }
        result.authorizer = step
        result.refusal = refusal
        return result
    }

    enum Decision {
        case allow(JSONObject, principal: String?)
        case refuse(Int, String?)
    }

    /// What a decision depends on besides the authorizer's answer.
    struct DecisionKey: Hashable {
        var resource: String
        var version: ProxyRequest.Version
    }

    /// What API Gateway makes of the authorizer's answer.
    static func decision(_ outcome: Invocation.Outcome, proxy: ProxyRequest, resource: String?) -> Decision {
        let forbidden = proxy.version == .v1 ? "User is not authorized to access this resource" : "Forbidden"
        switch outcome {
        case .failure(let error) where error.errorMessage == "Unauthorized":
            return .refuse(401, "Unauthorized")
        case .failure:
            return .refuse(500, proxy.version == .v1 ? nil : "Internal Server Error")
        case .success(let answer):
            if let authorized = answer["isAuthorized"]?.bool {
                return authorized
                    ? .allow(answer["context"]?.object ?? JSONObject(), principal: nil) : .refuse(403, forbidden)
            }
            guard let document = answer["policyDocument"], let resource else {
                return .refuse(500, proxy.version == .v1 ? nil : "Internal Server Error")
            }
            guard PolicyEvaluator.allows(document, resource: resource) else { return .refuse(403, forbidden) }
            return .allow(answer["context"]?.object ?? JSONObject(), principal: answer["principalId"]?.scalarText)
        }
    }

    /// Puts the authorizer's context where API Gateway puts it: REST as strings beside
    /// `principalId`; HTTP API under `lambda`, values as they were.
    static func inject(_ context: JSONObject, principal: String?, into event: JSONValue, version: ProxyRequest.Version)
        -> JSONValue
    {
        var section = JSONObject()
        switch version {
        case .v1:
            if let principal { section["principalId"] = .string(principal) }
            for (key, value) in context.pairs { section[key] = .string(value.scalarText ?? value.jsonString) }
            section["integrationLatency"] = 0
        case .v2:
            section["lambda"] = .object(context)
        }
        return event.setting(.object(section), at: ["requestContext", "authorizer"])
    }

    /// A response API Gateway makes itself. A REST API answers as template.yaml's gateway responses
    /// make it (`{"error":…,"code":…}`, docs/errors.md); an HTTP API, which has no gateway
    /// responses, answers `{"message":…}`.
    static func gatewayResponse(_ status: Int, _ message: String?, _ version: ProxyRequest.Version) -> JSONValue {
        let text = message.map(JSONValue.string) ?? .null
        guard version == .v1 else { return ProxyResponse.json(status, ["message": text]).json }
        var headers: [(String, String)] = []
        let code: ErrorCode
        switch status {
        case 400:
            // template.yaml's BAD_REQUEST_BODY: a body the request model refused.
            headers.append(("x-amzn-ErrorType", "BadRequestException"))
            code = .requestRejected
        case 401:
            headers.append(("x-amzn-ErrorType", "UnauthorizedException"))
            code = .unauthorized
        case 403:
            headers.append(("x-amzn-ErrorType", "AccessDeniedException"))
            code = .accessDenied
        default:
            headers += [("Retry-After", "2"), ("x-amzn-ErrorType", "AuthorizerConfigurationException")]
            code = .authorizerUnavailable
        }
        return ProxyResponse.json(status, ["error": text, "code": .string(code.rawValue)], headers: headers).json
    }
}

extension JSONValue {
    /// An authorizer event's `methodArn` or `routeArn`.
    var resourceArn: String? { self["methodArn"]?.string ?? self["routeArn"]?.string }
}
