/// A DynamoDB setting that is missing or malformed.
package struct DynamoDBConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the variable.
    package var message: String

    /// The variable that is wrong, when one is (`AWS_REGION`).
    package var variable: String?
    /// What is wrong with ``variable``, without its name.
    package var reason: String { variable.map { String(message.dropFirst($0.count + 1)) } ?? message }

    /// Creates an error.
    package init(_ message: String) { self.message = message }

    /// An error about one variable: "`<variable>` `<reason>`".
    package init(variable: String, _ reason: String) {
        self.message = "\(variable) \(reason)"
        self.variable = variable
    }

    package var description: String { message }
}
