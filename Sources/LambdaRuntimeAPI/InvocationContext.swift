import InkraJSON
import InkraTime

/// What the Runtime API says about one invocation, beside its event.
package struct InvocationContext: Sendable {
    /// `Lambda-Runtime-Aws-Request-Id`.
    package var requestID: String
    /// `Lambda-Runtime-Deadline-Ms`: when the invocation times out.
    package var deadline: Timestamp
    /// `Lambda-Runtime-Invoked-Function-Arn`.
    package var invokedFunctionARN: String?
    /// `Lambda-Runtime-Trace-Id`: handed on here only, never put in the environment as
    /// `_X_AMZN_TRACE_ID` (nothing in the process reads it there; see ``RuntimeLoop``).
    package var traceID: String?
    /// `Lambda-Runtime-Client-Context`, when the caller sent one (mobile SDKs).
    package var clientContext: String?
    /// `Lambda-Runtime-Cognito-Identity`, when the caller sent one.
    package var cognitoIdentity: String?

    /// Creates a context.
    package init(
        requestID: String,
        deadline: Timestamp,
        invokedFunctionARN: String? = nil,
        traceID: String? = nil,
        clientContext: String? = nil,
        cognitoIdentity: String? = nil
    ) {
        self.requestID = requestID
        self.deadline = deadline
        self.invokedFunctionARN = invokedFunctionARN
        self.traceID = traceID
        self.clientContext = clientContext
        self.cognitoIdentity = cognitoIdentity
    }

    /// The time left before the deadline at an instant of the caller's clock, never negative.
    package func remainingTime(now: Timestamp) -> Double {
        max(0, deadline.timeIntervalSince(now))
    }
}

/// A failed invocation as the Runtime API reports it.
package struct InvocationFailure: Error, Sendable, Hashable {
    /// `errorType` (also sent as `Lambda-Runtime-Function-Error-Type`).
    package var errorType: String
    /// `errorMessage`.
    package var errorMessage: String

    /// Creates a failure.
    package init(errorType: String, errorMessage: String) {
        self.errorType = errorType
        self.errorMessage = errorMessage
    }

    /// `{"errorMessage":…,"errorType":…}`.
    var json: [UInt8] {
        JSONValue.object(["errorMessage": .string(errorMessage), "errorType": .string(errorType)]).jsonBytes
    }
}
