/// The usage store could not do its work: the table failed or could not be reached.
public struct UsageStoreError: Error, Sendable, CustomStringConvertible {
    /// What the store was doing.
    public var operation: String
    /// What went wrong underneath.
    public var underlying: any Error

    /// Creates an error.
    public init(operation: String, underlying: any Error) {
        self.operation = operation
        self.underlying = underlying
    }

    /// "usage store failed to <operation>: <underlying>".
    public var description: String { "usage store failed to \(operation): \(underlying)" }
}
