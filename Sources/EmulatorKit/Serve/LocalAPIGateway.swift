import Foundation
import InkraHandlers
import InkraJSON
import InkraTime
import Synchronization

/// The deployed API on loopback: `POST /questions` → `generateQuestions`, `GET /usage` →
/// `checkUsage` and `DELETE /account` → `deleteAccount`, the authorizer in front with its answers
/// cached per token, CORS, and API Gateway's own answers for unknown routes, refused tokens and
/// failed functions.
package struct LocalAPIGateway: Sendable {
    /// How the API is set up.
    package struct Configuration: Sendable {
        /// REST API (payload 1.0) or HTTP API (payload 2.0).
        package var payload: ProxyRequest.Version = .v1
        /// A stage the routes are served under (`/prod/questions`); `nil` serves them at the root.
        package var stage: String?
        /// Seconds an authorizer answer is cached per token; 0 turns the cache off.
        package var authorizerCacheTTL: TimeInterval = AuthorizerCache.templateTimeToLive
        /// CORS.
        package var cors = CORSPolicy()
        /// Called after each request with what came of it (the console, `--record`); none by
        /// default, and with none nothing is gathered for them.
        package var observers: [@Sendable (GatewayExchange) -> Void] = []
        /// The stage's throttling per method; `nil` (the default here) turns it off. `serve` sets
        /// template.yaml's limits unless told otherwise.
        package var throttle: StageThrottle.Limits?
        /// Whether the REST API checks request bodies against template.yaml's request models
        /// (``RequestModel``) before invoking a function; off by default here, on under `serve`.
        package var validatesBodies = false
        /// How long API Gateway waits for the function before it answers for it: 29 s on a REST API
        /// (the default integration timeout), 30 s on an HTTP API; `nil` (the default here) waits for
        /// ever. The function runs on; its answer is dropped.
        package var integrationTimeout: Duration?

        /// The default setup: REST payloads at the root, a 300 s authorizer cache, CORS for any origin.
        package init() {}
    }

    /// One route of the API.
    package struct Route: Sendable {
        /// The HTTP method.
        package var method: String
        /// The resource path (`/questions`).
        package var resource: String
        /// The function behind it.
        package var function: FunctionName
    }

    /// The routes the API answers (template.yaml's `Api` events; openapi.yaml's paths).
    package static let routes = [
        Route(method: "POST", resource: "/questions", function: .generateQuestions),
        Route(method: "GET", resource: "/usage", function: .checkUsage),
        Route(method: "DELETE", resource: "/account", function: .deleteAccount),
    ]

    /// The setup.
    package let configuration: Configuration
    /// The authorizer cache.
    package let authorizerCache: AuthorizerCache
    private let chain: GatewayChain
    private let builder: ProxyEventBuilder
    private let clock: @Sendable () -> Timestamp
    private let throttle: StageThrottle?

    /// The API in front of a stack.
    /// - Parameters:
    ///   - stack: the functions.
    ///   - configuration: payload version, stage, cache and CORS.
    ///   - target: where to run a function other than in-process (a runtime behind the Runtime API).
    package init(stack: EmulatorStack, configuration: Configuration = Configuration(), target: FunctionTarget? = nil) {
        self.configuration = configuration
        clock = { stack.now() }
        authorizerCache = AuthorizerCache(timeToLive: configuration.authorizerCacheTTL, now: stack.options.clock)
        var chain = stack.gateway.caching(in: authorizerCache)
        if let target { chain = chain.running(on: target) }
        if configuration.validatesBodies { chain = chain.validatingBodies() }
        self.chain = chain
        throttle = configuration.throttle.map { StageThrottle($0) }
        let defaultStage = configuration.payload == .v1 ? "prod" : "$default"
        builder = ProxyEventBuilder(version: configuration.payload, stage: configuration.stage ?? defaultStage)
    }

    /// Answers one request as API Gateway would.
    package func respond(_ request: LocalHTTPRequest) async -> ServedRequest {
        let started = ContinuousClock.now
        let time = clock()
        let requestID = RequestID.make()
        var served = ServedRequest(response: LocalHTTPResponse(status: 500), requestID: requestID, time: time)
        served.response = await answer(request, requestID: requestID, time: time, record: &served)
        served.response.headers.append(contentsOf: requestIDHeaders(requestID))
        if !served.isPreflight { configuration.cors.decorate(&served.response, for: request) }
        served.duration = ContinuousClock.now - started
        if !configuration.observers.isEmpty {
            let exchange = GatewayExchange(request: request, served: served)
            for observer in configuration.observers { observer(exchange) }
        }
        return served
    }

    private func answer(
        _ request: LocalHTTPRequest, requestID: String, time: Timestamp, record: inout ServedRequest
    ) async -> LocalHTTPResponse {
        guard let path = pathWithoutStage(request.path) else { return notFound() }
        let matching = Self.routes.filter { $0.resource == path || $0.resource + "/" == path }
        if let preflight = configuration.cors.preflight(request, methods: matching.map(\.method)), !matching.isEmpty {
            record.isPreflight = true
            return preflight
        }
        guard let route = matching.first(where: { $0.method == request.method }) else { return notFound() }
        record.function = route.function
        if let throttle, !throttle.admits(method: route.method, resource: route.resource) { return throttled() }
        let event = builder.event(for: request, resource: route.resource, path: path, requestID: requestID, at: time)
        if !configuration.observers.isEmpty { record.event = event }
        guard let invocation = await invoke(route.function, event: event, at: time) else {
            return integrationTimedOut()
        }
        record.authorizer = invocation.authorizer.map { $0.cached ? .cached : .invoked } ?? .notCalled
        record.refusal = invocation.refusal
        record.bodyRefused = invocation.bodyRefused
        if !configuration.observers.isEmpty {
            record.authorizerStep = invocation.authorizer
            record.trace = invocation.trace
        }
        return ProxyResponseReader.response(for: invocation.outcome, version: configuration.payload)
    }

    /// The chain's invocation, or `nil` when ``Configuration/integrationTimeout`` passes first; the
    /// invocation then runs on, as Lambda runs a function API Gateway gave up on.
    private func invoke(_ function: FunctionName, event: JSONValue, at time: Timestamp) async -> Invocation? {
        let chain = self.chain
        guard let limit = configuration.integrationTimeout else {
            return await chain.invoke(function, event: event, at: time)
        }
        let first = FirstAnswer()
        return await withCheckedContinuation { continuation in
            first.start(continuation)
            let timer = Task {
                try? await Task.sleep(for: limit)
                if !Task.isCancelled { first.answer(nil) }
            }
            Task {
                first.answer(await chain.invoke(function, event: event, at: time))
                timer.cancel()
            }
        }
    }

    /// API Gateway's answer when the function outlasts the integration timeout: template.yaml's
    /// `INTEGRATION_TIMEOUT` gateway response (504, `Retry-After: 2`) on a REST API,
    /// `{"message":"Service Unavailable"}` (503) on an HTTP API.
    private func integrationTimedOut() -> LocalHTTPResponse {
        switch configuration.payload {
        case .v1:
            ProxyResponseReader.message(
                504, "Endpoint request timed out", code: .timeout,
                headers: [("Retry-After", "2"), ("x-amzn-ErrorType", "InternalServerErrorException")])
        case .v2:
            ProxyResponseReader.message(503, "Service Unavailable")
        }
    }

    /// API Gateway's answer to a body over its 10 MB limit.
    package func requestTooLarge() -> LocalHTTPResponse {
        ProxyResponseReader.message(
            413, "Request Too Long", code: configuration.payload == .v1 ? .requestRejected : nil)
    }

    /// The path below the stage, or `nil` when a stage is set and the path is not under it.
    private func pathWithoutStage(_ path: String) -> String? {
        guard let stage = configuration.stage else { return path }
        let prefix = "/\(stage)"
        guard path.hasPrefix(prefix + "/") else { return nil }
        return String(path.dropFirst(prefix.count))
    }

    /// API Gateway's answer to a request its stage's throttling refuses: template.yaml's `THROTTLED`
    /// gateway response on a REST API, `{"message":"Too Many Requests"}` on an HTTP API.
    private func throttled() -> LocalHTTPResponse {
        switch configuration.payload {
        case .v1:
            ProxyResponseReader.message(
                429, "Too Many Requests", code: .throttled,
                headers: [("Retry-After", "1"), ("x-amzn-ErrorType", "TooManyRequestsException")])
        case .v2:
            ProxyResponseReader.message(429, "Too Many Requests")
        }
    }

    /// API Gateway's answer for a route it does not have.
    private func notFound() -> LocalHTTPResponse {
        switch configuration.payload {
        case .v1:
            ProxyResponseReader.message(
                403, "Missing Authentication Token", code: .requestRejected,
                headers: [("x-amzn-ErrorType", "MissingAuthenticationTokenException")])
        case .v2:
            ProxyResponseReader.message(404, "Not Found")
        }
    }

    private func requestIDHeaders(_ requestID: String) -> [(name: String, value: String)] {
        switch configuration.payload {
        case .v1: [("x-amzn-RequestId", requestID), ("x-amz-apigw-id", RequestID.extended(requestID))]
        case .v2: [("Apigw-Requestid", requestID)]
        }
    }
}

/// One request the local API answered, with what its access-log line tells.
package struct ServedRequest: Sendable {
    /// How the authorizer took part.
    package enum AuthorizerUse: String, Sendable {
        /// Not called (no route, a preflight, or no token to check).
        case notCalled
        /// Answered from the authorizer cache.
        case cached
        /// Run for this request.
        case invoked
    }

    /// The response.
    package var response: LocalHTTPResponse
    /// API Gateway's request id.
    package var requestID: String
    /// When the request arrived, on the stack's clock.
    package var time: Timestamp
    /// The function the route led to, if any.
    package var function: FunctionName?
    /// How the authorizer took part.
    package var authorizer = AuthorizerUse.notCalled
    /// Why the authorizer refused or denied, when it ran in-process and did (``Invocation/refusal``).
    package var refusal: String?
    /// Whether the request validator refused the body, so the function was not invoked.
    package var bodyRefused = false
    /// How long the answer took.
    package var duration = Duration.zero
    /// Whether this was a CORS preflight, answered by API Gateway itself.
    package var isPreflight = false
    /// The event sent to the function; kept only when the gateway has observers.
    package var event: JSONValue?
    /// The authorizer's event and answer; kept only when the gateway has observers.
    package var authorizerStep: AuthorizerStep?
    /// The X-Ray segment document the function's runtime sent; kept only when the gateway has
    /// observers.
    package var trace: JSONValue?

    /// The access-log line: `- [time] "POST /questions HTTP/1.1" 200 312 generateQuestions authorizer=cached 0.41ms id`.
    package func accessLogLine(for request: LocalHTTPRequest) -> String {
        let target = request.query.isEmpty ? request.path : "\(request.path)?\(request.query)"
        let milliseconds = duration.milliseconds
        // The client's address is left out ("-"), as every log of the stack leaves it out.
        return
            "- [\(CivilTime.apiGatewayTime(time))] \"\(request.method) \(target) \(request.httpVersion)\" "
            + "\(response.status) \(response.body.count) \(function?.rawValue ?? "-") authorizer=\(authorizer.rawValue) "
            + (refusal.map { "refused=\($0) " } ?? "")
            + (bodyRefused ? "validation=refused " : "")
            + String(format: "%.2fms", milliseconds) + " \(requestID)"
    }
}

/// Resumes a continuation with the first of two answers (the function's, or the timeout's `nil`).
private final class FirstAnswer: Sendable {
    private let continuation = Mutex<CheckedContinuation<Invocation?, Never>?>(nil)

    func start(_ continuation: CheckedContinuation<Invocation?, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    /// Resumes with `answer` when nothing has yet; whether it did.
    @discardableResult
    func answer(_ answer: Invocation?) -> Bool {
        guard
            let waiting = continuation.withLock({ state in
                defer { state = nil }
                return state
            })
        else {
            return false
        }
        waiting.resume(returning: answer)
        return true
    }
}
