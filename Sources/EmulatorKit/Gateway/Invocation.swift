import Foundation
import InkraHandlers
import InkraJSON

/// What came of one invocation through the chain.
package struct Invocation: Sendable {
    /// The function's result, or its failure.
    package enum Outcome: Sendable, Hashable {
        /// The function returned this JSON (for proxy functions, a proxy response).
        case success(JSONValue)
        /// The invocation failed with Lambda's error object.
        case failure(FunctionError)
    }

    /// The outcome.
    package var outcome: Outcome
    /// The authorizer's part, when the chain ran it first.
    package var authorizer: AuthorizerStep?
    /// Why the request was refused for authorization (a reason code: `noToken` when it carried no
    /// token, so API Gateway refused it before any authorizer; the authorizer's `expired`,
    /// `issuedInFuture`, `wrongIssuer`, `unknownKey`, `blocked`… when it ran in-process, or its
    /// cached Deny's); `nil` otherwise (a runtime elsewhere says only `Unauthorized`). Never the
    /// token or anything read from it.
    package var refusal: String?
    /// The X-Ray segment document the runtime sent for this invocation (``RuntimeInvoker/traces``),
    /// when it ran in a runtime that traced it.
    package var trace: JSONValue?
    /// Whether API Gateway's request validator refused the body (400 `Invalid request body`), so
    /// the function was never invoked.
    package var bodyRefused = false
    /// How long the function ran in-process, from the event handed over to its answer (what Lambda
    /// bills as Duration); `nil` when no function ran here (API Gateway answered itself, or a
    /// runtime elsewhere ran it).
    package var duration: Duration?

    /// Creates a result.
    package init(outcome: Outcome, authorizer: AuthorizerStep? = nil) {
        self.outcome = outcome
        self.authorizer = authorizer
    }

    /// The HTTP status, when the outcome is a proxy response.
    package var statusCode: Int? {
        if case .success(let json) = outcome { return json["statusCode"]?.int }
        return nil
    }

    /// The result's JSON: the response, or Lambda's error object.
    package var json: JSONValue {
        switch outcome {
        case .success(let json): json
        case .failure(let error): error.json
        }
    }

    /// Runs one function on one event.
    package static func run(
        _ handler: any EventHandler, _ event: JSONValue, context: InvocationContext
    ) async -> Invocation {
        let started = ContinuousClock.now
        var result: Invocation
        do {
            result = Invocation(outcome: .success(try await handler.handle(event, context: context)))
        } catch {
            result = Invocation(outcome: .failure(error))
        }
        result.duration = ContinuousClock.now - started
        return result
    }
}

/// The authorizer's part of a chained invocation.
package struct AuthorizerStep: Sendable, Hashable {
    /// The event API Gateway sent the authorizer; `nil` when the answer came from the cache and
    /// no event was sent.
    package var event: JSONValue?
    /// What the authorizer answered.
    package var result: Invocation.Outcome
    /// Whether the answer came from API Gateway's authorizer cache rather than a run.
    package var cached = false
    /// How long the authorizer ran in-process; `nil` when the cache answered or a runtime ran it.
    package var duration: Duration?
}
