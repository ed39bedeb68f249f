/// An error from a ``Table``, named as DynamoDB names it.
package struct TableError: Error, Sendable, Hashable, CustomStringConvertible {
    /// DynamoDB's error name, such as `ConditionalCheckFailedException`.
    package struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        package var rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }
        package var description: String { rawValue }

        /// A condition expression was false.
        package static let conditionalCheckFailed = Code(rawValue: "ConditionalCheckFailedException")
        /// A transaction was not applied; see ``TableError/cancellationReasons``.
        package static let transactionCanceled = Code(rawValue: "TransactionCanceledException")
        /// The request is malformed: bad expression, wrong key, item too large, …
        package static let validation = Code(rawValue: "ValidationException")
        /// The table or index does not exist.
        package static let resourceNotFound = Code(rawValue: "ResourceNotFoundException")
        /// The table is being asked for more than its capacity.
        package static let provisionedThroughputExceeded = Code(rawValue: "ProvisionedThroughputExceededException")
        /// The service is throttling requests.
        package static let throttling = Code(rawValue: "ThrottlingException")
        /// The account's request rate is over its limit.
        package static let requestLimitExceeded = Code(rawValue: "RequestLimitExceeded")
        /// Another transaction holds one of the items (a plain write to an item in a transaction).
        package static let transactionConflict = Code(rawValue: "TransactionConflictException")
        /// The transaction with this `ClientRequestToken` is still running; retry with the same token.
        package static let transactionInProgress = Code(rawValue: "TransactionInProgressException")
        /// A `ClientRequestToken` was reused with a different request.
        package static let idempotentParameterMismatch = Code(rawValue: "IdempotentParameterMismatchException")
        /// The service failed.
        package static let internalServerError = Code(rawValue: "InternalServerError")
        /// The service could not be reached or did not answer in time.
        package static let serviceUnavailable = Code(rawValue: "ServiceUnavailable")
    }

    /// Why one action of a transaction was cancelled, in the order of the request's actions.
    package struct CancellationReason: Sendable, Hashable {
        /// `None`, `ConditionalCheckFailed`, `ValidationError`, `TransactionConflict`, …
        package var code: String
        package var message: String?
        /// The item as it was, when `ReturnValuesOnConditionCheckFailure` was `ALL_OLD`.
        package var item: Item?

        package init(code: String, message: String? = nil, item: Item? = nil) {
            self.code = code
            self.message = message
            self.item = item
        }

        /// The action was not the cause.
        package static let none = CancellationReason(code: "None")

        /// The code of an action whose condition was not met.
        package static let conditionalCheckFailed = "ConditionalCheckFailed"

        /// Whether the action's own condition was not met.
        package var isConditionFailure: Bool { code == Self.conditionalCheckFailed }

        /// The codes of reasons that say nothing about the action itself — another transaction held
        /// its item, or the table was throttled — so the same action may go through later.
        package static let transientCodes: Set<String> = [
            "None", "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded",
        ]
    }

    package var code: Code
    package var message: String
    /// For ``Code/transactionCanceled``: one reason per action, in request order.
    package var cancellationReasons: [CancellationReason]
    /// For ``Code/conditionalCheckFailed`` with `ALL_OLD`: the item as it was.
    package var item: Item?
    /// Whether the request may have taken effect although this error says otherwise: the client
    /// retried it after an attempt whose outcome it never learned (a timeout, a dropped connection,
    /// a 5xx, a transaction still in progress).
    package var followsUnknownOutcome: Bool

    package init(
        _ code: Code,
        _ message: String,
        cancellationReasons: [CancellationReason] = [],
        item: Item? = nil,
        followsUnknownOutcome: Bool = false
    ) {
        self.code = code
        self.message = message
        self.cancellationReasons = cancellationReasons
        self.item = item
        self.followsUnknownOutcome = followsUnknownOutcome
    }

    /// `"<code>: <message>"`, and whether an earlier attempt may have been applied.
    package var description: String {
        "\(code.rawValue): \(message)"
            + (followsUnknownOutcome ? " (after an attempt whose outcome is unknown: it may have been applied)" : "")
    }

    /// Whether a retry of the same request may succeed (throttling, conflicts, a transaction still in
    /// progress, service failures). A cancelled transaction is not: see `isTransientCancellation`.
    package var isRetryable: Bool {
        [
            .provisionedThroughputExceeded, .throttling, .requestLimitExceeded, .transactionConflict,
            .transactionInProgress, .internalServerError, .serviceUnavailable,
        ].contains(code)
    }

    /// Whether the request may have taken effect: the service failed or did not answer, the same
    /// token's transaction is still running, or an earlier attempt ended so (``followsUnknownOutcome``).
    package var isOutcomeUnknown: Bool {
        followsUnknownOutcome || [.internalServerError, .serviceUnavailable, .transactionInProgress].contains(code)
    }

    /// Whether a transaction was cancelled only because of other requests — every reason is `None`,
    /// `TransactionConflict`, `ThrottlingError` or `ProvisionedThroughputExceeded`, and one is not
    /// `None` — so nothing was applied and the same actions may go through later. A cancellation
    /// with any other reason (`ConditionalCheckFailed`, `ValidationError`, …) is an answer, not a
    /// transient failure.
    package var isTransientCancellation: Bool {
        code == .transactionCanceled
            && cancellationReasons.contains { $0.code != "None" }
            && cancellationReasons.allSatisfy { CancellationReason.transientCodes.contains($0.code) }
    }

    /// Whether another transaction held one of the items: `TransactionConflictException`, or a
    /// cancellation with a `TransactionConflict` reason.
    package var isConflict: Bool {
        code == .transactionConflict
            || (code == .transactionCanceled && cancellationReasons.contains { $0.code == "TransactionConflict" })
    }
}
