import InkraJSON
import InkraTime
import InkraUsage

/// One recorded invocation (`INKRA_RECORD_EVENTS=1`), as `bootstrap` writes it to its log and
/// `inkra-emulator import` reads it back: the function, Lambda's request id, the instant the
/// function read from its clock (whole milliseconds), and either the redacted event and its
/// response (or failure), or for the authorizer its decision, the claims it verified that decide
/// the caller's limits (``RecordingRedaction/claims(_:)``) and the reason it refused, if it did.
package struct Recording: Sendable, Hashable {
    /// The function (`checkUsage`, `generateQuestions`, `deleteAccount`, `authorizer`).
    package var function: String
    /// Lambda's request id of the invocation.
    package var requestID: String
    /// The instant the function read from its clock, in milliseconds since 1970.
    package var epochMilliseconds: Int64
    /// The event as it arrived, redacted (not for the authorizer).
    package var event: JSONValue?
    /// The function's result, redacted.
    package var response: JSONValue?
    /// `{"errorType":…,"errorMessage":…}` when the invocation failed.
    package var error: JSONValue?
    /// The authorizer's decision: principal, effect, context.
    package var decision: JSONValue?
    /// The authorizer's verified claims that decide the caller's limits (``RecordingRedaction/claims(_:)``):
    /// from a token whose signature and issuer were verified, accepted or refused for its expiry
    /// only; `nil` for any other token.
    package var claims: JSONValue?
    /// Why the authorizer refused or denied (a reason code: `expired`, `wrongIssuer`, `blocked`…).
    package var refusal: String?

    /// Creates a recording.
    package init(
        function: String, requestID: String, epochMilliseconds: Int64, event: JSONValue? = nil,
        response: JSONValue? = nil, error: JSONValue? = nil, decision: JSONValue? = nil, claims: JSONValue? = nil,
        refusal: String? = nil
    ) {
        self.function = function
        self.requestID = requestID
        self.epochMilliseconds = epochMilliseconds
        self.event = event
        self.response = response
        self.error = error
        self.decision = decision
        self.claims = claims
        self.refusal = refusal
    }

    /// The instant as a date.
    package var instant: Timestamp { Self.date(milliseconds: epochMilliseconds) }

    /// A date from whole milliseconds, computed as every reader of `requestTimeEpoch` computes it.
    package static func date(milliseconds: Int64) -> Timestamp {
        Timestamp(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// A date's whole milliseconds (rounded down).
    package static func milliseconds(of date: Timestamp) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The recording as JSON (format version 1; `claims` and `refusal` are optional members that
    /// readers of earlier recordings ignore).
    package var json: JSONValue {
        var object: JSONObject = [
            "v": 1, "function": .string(function), "requestId": .string(requestID),
            "at": .string(CivilTime.iso8601(milliseconds: epochMilliseconds)),
            "epochMillis": .number(String(epochMilliseconds)),
        ]
        if let event { object["event"] = event }
        if let response { object["response"] = response }
        if let error { object["error"] = error }
        if let decision { object["decision"] = decision }
        if let claims { object["claims"] = claims }
        if let refusal { object["refusal"] = .string(refusal) }
        return .object(object)
    }

    /// Reads a recording back from its JSON.
    /// - Returns: `nil` when a required member is missing or of the wrong type.
    package init?(json: JSONValue) {
        guard json["v"]?.int == 1, let function = json["function"]?.string, let requestID = json["requestId"]?.string,
            let millis = json["epochMillis"]?.double, millis.isFinite, abs(millis) < 1e15
        else { return nil }
        self.init(
            function: function, requestID: requestID, epochMilliseconds: Int64(millis), event: json["event"],
            response: json["response"], error: json["error"], decision: json["decision"],
            claims: json["claims"]?.object.map(JSONValue.object), refusal: json["refusal"]?.string)
    }
}
