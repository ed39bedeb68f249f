import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTime

/// One metered call of a what-if replay: who made it, what the recording says became of it, and
/// what became of it under the new limits. It holds identifiers only, never the request's body.
package struct MeteredCall: Sendable, Hashable {
    /// The event file, as named in output.
    package var file: String
    /// API Gateway's request id (`requestContext.requestId`), when the event has one.
    package var requestID: String?
    /// The caller's user id, when the authorizer's context or the event names one.
    package var userID: String?
    /// The caller's tier (`free`, `premium`), or `unknown`.
    package var tier: String
    /// When the call was recorded.
    package var recordedAt: Timestamp?
    /// What the recording says became of it.
    package var recorded: Admission
    /// What became of it in the replay.
    package var replayed: Admission
    /// The caller's own monthly limit, when the context the call ran with names one.
    package var monthlyQuota: Int?

    /// Creates a call.
    package init(
        file: String, requestID: String? = nil, userID: String? = nil, tier: String, recordedAt: Timestamp? = nil,
        recorded: Admission, replayed: Admission, monthlyQuota: Int? = nil
    ) {
        self.file = file
        self.requestID = requestID
        self.userID = userID
        self.tier = tier
        self.recordedAt = recordedAt
        self.recorded = recorded
        self.replayed = replayed
        self.monthlyQuota = monthlyQuota
    }

    /// A call read from its event, its recorded expectation and its replay.
    /// - Parameters:
    ///   - file: the event file, as named in output.
    ///   - event: the event as replayed (its context's quota moved to the new limits).
    ///   - recorded: the admission its expectation holds.
    ///   - invocation: what replay got.
    package init(file: String, event: JSONValue, recorded: Admission, invocation: Invocation) {
        let identity = Self.identity(event: event, invocation: invocation)
        self.init(
            file: file,
            requestID: event["requestContext"]?["requestId"]?.scalarText,
            userID: identity?.userID,
            tier: identity?.tier.rawValue ?? "unknown",
            recordedAt: Replayer.recordedTime(event),
            recorded: recorded,
            replayed: Admission(invocation),
            monthlyQuota: identity?.monthlyQuota
        )
    }

    /// The caller: from the authorizer's answer when replay ran it, else from the event's own
    /// authorizer section (a recording carries the context the authorizer gave).
    static func identity(event: JSONValue, invocation: Invocation) -> CallerIdentity? {
        if case .success(let answer)? = invocation.authorizer?.result,
            let identity = CallerIdentity(authorizer: answer["context"]?.object)
        {
            return identity
        }
        return CallerIdentity(authorizer: event["requestContext"]?["authorizer"]?.object)
    }

    /// How the call is named in a report: its request id, else its file.
    package var reference: String { requestID ?? file }
}
