/// The usage store could not do its work, with a stable code: the table failed or could not be
/// reached, or the items kept changing under it.
package struct UsageStoreError: Error, Sendable, CustomStringConvertible {
    /// A stable reason code.
    package enum Code: String, Sendable, CustomStringConvertible {
        package var description: String { rawValue }

        /// The table failed or could not be reached (``UsageStoreError/underlying`` says how).
        case tableFailed
        /// Other requests kept changing the items the operation reads, past its attempts; trying
        /// again later may go through.
        case contended
        /// Another request took the call over (its idempotency record is no longer this call's).
        case takenOver
    }

    /// The reason.
    package var code: Code
    /// What the store was doing.
    package var operation: String
    /// What went wrong underneath: the table's error for ``Code/tableFailed``, else the store's
    /// own message.
    package var underlying: any Error
    /// A unit the store charged before it failed (the charge is known to stand, what followed it
    /// was not): the caller gives it back.
    package var charged: Consumption?

    /// The table failed underneath.
    package init(operation: String, underlying: any Error, charged: Consumption? = nil) {
        self.code = .tableFailed
        self.operation = operation
        self.underlying = underlying
        self.charged = charged
    }

    /// The store's own failure, with why.
    init(_ code: Code, operation: String, _ message: String) {
        self.code = code
        self.operation = operation
        self.underlying = Message(text: message)
    }

    /// "usage store failed to <operation>: <underlying>".
    package var description: String { "usage store failed to \(operation): \(underlying)" }

    /// A message standing as the underlying error.
    private struct Message: Error, CustomStringConvertible {
        let text: String
        var description: String { text }
    }
}
