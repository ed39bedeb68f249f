import Foundation
import InkraHandlers
import InkraJSON
import InkraTime

/// One request the local API Gateway answered, as its observers (the console, `serve --record`)
/// see it.
///
/// It carries the request's token (in the events) and body as sent: an observer that keeps or
/// writes it out must redact them first.
package struct GatewayExchange: Sendable {
    /// The method, such as `POST`.
    package var method: String
    /// The path as sent, without the query string.
    package var path: String
    /// The raw query string, without `?`; empty when there is none.
    package var query: String
    /// API Gateway's request id.
    package var requestID: String
    /// The caller, when the authorizer named one (`userId` of its context, else `principalId`).
    package var userID: String?
    /// The function the route led to; `nil` for an unknown route or a preflight.
    package var function: FunctionName?
    /// The proxy event built for the function; `nil` when no route matched.
    package var event: JSONValue?
    /// The authorizer's event and answer; `nil` when it was not called.
    package var authorizer: AuthorizerStep?
    /// The response, headers as written.
    package var response: LocalHTTPResponse
    /// Usage units the request consumed: 1 for a `generateQuestions` answered 200 (docs/functions.md:
    /// any other answer charges nothing or gives its unit back), 0 for any other routed request;
    /// `nil` when no route matched.
    package var unitsConsumed: Int?
    /// When the request arrived, on the stack's clock.
    package var started: Timestamp
    /// How long the answer took.
    package var duration: Duration
    /// The X-Ray segment document the function's runtime sent, when it ran in one that traced it.
    package var trace: JSONValue?
    /// Whether the request validator refused the body, so no function ran.
    package var bodyRefused = false

    /// Creates an exchange.
    package init(
        method: String, path: String, query: String = "", requestID: String, userID: String? = nil,
        function: FunctionName? = nil, event: JSONValue? = nil, authorizer: AuthorizerStep? = nil,
        response: LocalHTTPResponse, unitsConsumed: Int? = nil, started: Timestamp, duration: Duration = .zero
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.requestID = requestID
        self.userID = userID
        self.function = function
        self.event = event
        self.authorizer = authorizer
        self.response = response
        self.unitsConsumed = unitsConsumed
        self.started = started
        self.duration = duration
    }

    /// The exchange of a request and what the gateway made of it.
    init(request: LocalHTTPRequest, served: ServedRequest) {
        var user: String?
        if case .success(let answer) = served.authorizerStep?.result {
            user = answer["context"]?["userId"]?.scalarText ?? answer["principalId"]?.scalarText
        }
        self.init(
            method: request.method, path: request.path, query: request.query, requestID: served.requestID,
            userID: user, function: served.function, event: served.event, authorizer: served.authorizerStep,
            response: served.response,
            unitsConsumed: served.function.map { $0 == .generateQuestions && served.response.status == 200 ? 1 : 0 },
            started: served.time, duration: served.duration)
        trace = served.trace
        bodyRefused = served.bodyRefused
    }
}
