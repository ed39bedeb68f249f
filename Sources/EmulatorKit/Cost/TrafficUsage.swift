import Foundation
import InkraHandlers
import InkraTime

/// What a slice of replayed traffic used of each billed resource: the quantities AWS prices, not
/// yet priced (``Bill``).
package struct Usage: Sendable, Hashable {
    /// One function's invocations.
    package struct Invocations: Sendable, Hashable {
        /// How many times it ran.
        package var count = 0
        /// Its measured durations, each rounded up to the millisecond as Lambda bills them, summed.
        package var billedMilliseconds = 0

        /// Invocations.
        package init(count: Int = 0, billedMilliseconds: Int = 0) {
            self.count = count
            self.billedMilliseconds = billedMilliseconds
        }
    }

    /// REST API requests API Gateway charges (payload 1.0).
    package var restRequests = 0
    /// HTTP API requests API Gateway charges (payload 2.0), counted in 512 KB steps of request
    /// and response body.
    package var httpRequests = 0
    /// Lambda invocations, by function.
    package var invocations: [FunctionName: Invocations] = [:]
    /// DynamoDB write request units.
    package var writeUnits = 0
    /// DynamoDB read request units, in halves (an eventually consistent read of 4 KB is one).
    package var readHalfUnits = 0
    /// Bytes of log lines.
    package var logBytes = 0
    /// `generateQuestions` calls answered 200: each asked the model for questions unless it
    /// replayed an idempotent answer.
    package var answeredCalls = 0

    /// Creates an empty usage.
    package init() {}

    /// Both usages summed.
    package static func + (lhs: Usage, rhs: Usage) -> Usage {
        var sum = lhs
        sum.restRequests += rhs.restRequests
        sum.httpRequests += rhs.httpRequests
        for (function, invocations) in rhs.invocations {
            sum.invocations[function, default: Invocations()].count += invocations.count
            sum.invocations[function, default: Invocations()].billedMilliseconds += invocations.billedMilliseconds
        }
        sum.writeUnits += rhs.writeUnits
        sum.readHalfUnits += rhs.readHalfUnits
        sum.logBytes += rhs.logBytes
        sum.answeredCalls += rhs.answeredCalls
        return sum
    }

    /// Lambda invocations of every function.
    package var invocationCount: Int { invocations.values.reduce(0) { $0 + $1.count } }
}

/// One replayed event's usage, and whom it is billed to.
package struct MeteredEvent: Sendable {
    /// The event, as named in output.
    package var file: String
    /// The function the event was for.
    package var function: FunctionName
    /// The caller's tier (`free`, `premium`), or `unknown`.
    package var tier: String
    /// The caller, when known.
    package var userID: String?
    /// What it used.
    package var usage: Usage
    /// Whether it reached its function with the authorizer's answer already in it (an imported
    /// event), so the authorizer run production made for it, if any, is not counted.
    package var carriedAuthorizerAnswer = false
    /// Whether API Gateway's authorizer cache answered for it (no authorizer run billed).
    package var cachedAuthorizerAnswer = false
    /// A `generateQuestions` call, its admission as the replay answered it (in both
    /// ``MeteredCall/recorded`` and ``MeteredCall/replayed``), for ``AlgorithmEstimate``.
    package var call: MeteredCall?
    /// When it was recorded, when the event says.
    package var recordedAt: Timestamp?
}

/// A replay's usage: in total, by function (the authorizer's runs in front of other functions
/// billed to the authorizer), by tier, and the distinct users.
package struct TrafficUsage: Sendable {
    /// Events priced.
    package var events = 0
    /// Files that could not be replayed, and why.
    package var problems: [WhatIfReport.Problem] = []
    /// Everything.
    package var total = Usage()
    /// By the function that used it.
    package var byFunction: [FunctionName: Usage] = [:]
    /// By the caller's tier.
    package var byTier: [String: Usage] = [:]
    /// Distinct callers.
    package var users: Set<String> = []
    /// Events that carried the authorizer's answer (see ``MeteredEvent/carriedAuthorizerAnswer``).
    package var carriedAuthorizerAnswer = 0
    /// Authorizer answers served from API Gateway's cache (not invoked, not billed).
    package var cachedAuthorizerAnswers = 0
    /// The `generateQuestions` calls, in replay order, each with what its event used.
    package var calls: [(call: MeteredCall, usage: Usage)] = []
    /// The first and the last recorded instant of the events: the period the traffic covers.
    package var period: ClosedRange<Timestamp>?
    /// What the table holds after the replay, in DynamoDB's storage bytes (items plus 100 bytes
    /// each, GSI1's copies included).
    package var storedBytes = 0

    /// Adds one event.
    package mutating func add(_ event: MeteredEvent) {
        events += 1
        total = total + event.usage
        byTier[event.tier, default: Usage()] = byTier[event.tier, default: Usage()] + event.usage
        var own = event.usage
        if event.function != .authorizer, let authorizer = own.invocations.removeValue(forKey: .authorizer) {
            var part = Usage()
            part.invocations[.authorizer] = authorizer
            byFunction[.authorizer, default: Usage()] = byFunction[.authorizer, default: Usage()] + part
        }
        byFunction[event.function, default: Usage()] = byFunction[event.function, default: Usage()] + own
        if let user = event.userID { users.insert(user) }
        if event.carriedAuthorizerAnswer { carriedAuthorizerAnswer += 1 }
        if event.cachedAuthorizerAnswer { cachedAuthorizerAnswers += 1 }
        if let call = event.call { calls.append((call, event.usage)) }
        if let instant = event.recordedAt {
            period = period.map { min($0.lowerBound, instant)...max($0.upperBound, instant) } ?? instant...instant
        }
    }
}
