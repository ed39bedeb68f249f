/// The usage store could not do its work: the table failed or could not be reached.
package struct UsageStoreError: Error, Sendable, CustomStringConvertible {
    /// What the store was doing.
    package var operation: String
    /// What went wrong underneath.
    package var underlying: any Error
    /// A unit the store charged before it failed (the charge is known to stand, what followed it
    /// was not): the caller gives it back.
    package var charged: Consumption?

    /// Creates an error.
    package init(operation: String, underlying: any Error, charged: Consumption? = nil) {
        self.operation = operation
        self.underlying = underlying
        self.charged = charged
    }

    /// "usage store failed to <operation>: <underlying>".
    package var description: String { "usage store failed to \(operation): \(underlying)" }
}
