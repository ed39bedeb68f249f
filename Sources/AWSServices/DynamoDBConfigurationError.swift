/// A DynamoDB setting that is missing or malformed.
public struct DynamoDBConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the variable.
    public var message: String

    /// The variable that is wrong, when one is (`AWS_REGION`).
    package var variable: String?
    /// What is wrong with ``variable``, without its name.
    package var reason: String { variable.map { String(message.dropFirst($0.count + 1)) } ?? message }

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// An error about one variable: "`<variable>` `<reason>`".
    package init(variable: String, _ reason: String) {
        self.message = "\(variable) \(reason)"
        self.variable = variable
    }

    public var description: String { message }
}
