import InkraJSON

/// A failed invocation, reported as Lambda reports it: `{"errorMessage":…,"errorType":…}`.
public struct FunctionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `errorType`.
    public var errorType: String
    /// `errorMessage`.
    public var errorMessage: String

    /// Creates an invocation error.
    public init(errorType: String, errorMessage: String) {
        self.errorType = errorType
        self.errorMessage = errorMessage
    }

    /// The authorizer's refusal: API Gateway answers 401.
    public static let unauthorized = FunctionError(errorType: "Unauthorized", errorMessage: "Unauthorized")

    /// An event the function cannot read, with what is wrong.
    package static func invalidEvent(_ message: String) -> FunctionError {
        FunctionError(errorType: "InvalidEvent", errorMessage: message)
    }

    /// An event that is not JSON, with the parser's account of where.
    package static func notJSON(_ error: JSONParseError) -> FunctionError {
        invalidEvent("event is not valid JSON: \(error)")
    }

    /// Lambda's error object.
    package var json: JSONValue { ["errorMessage": .string(errorMessage), "errorType": .string(errorType)] }

    /// "`<errorType>`: `<errorMessage>`".
    public var description: String { "\(errorType): \(errorMessage)" }
}
