/// An error from a ``Table``, named as DynamoDB names it.
public struct TableError: Error, Sendable, Hashable, CustomStringConvertible {
    /// DynamoDB's error name, such as `ConditionalCheckFailedException`.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A condition expression was false.
        public static let conditionalCheckFailed = Code(rawValue: "ConditionalCheckFailedException")
        /// A transaction was not applied; see ``TableError/cancellationReasons``.
        public static let transactionCanceled = Code(rawValue: "TransactionCanceledException")
        /// The request is malformed: bad expression, wrong key, item too large, …
        public static let validation = Code(rawValue: "ValidationException")
        /// The table or index does not exist.
        public static let resourceNotFound = Code(rawValue: "ResourceNotFoundException")
        /// The table is being asked for more than its capacity.
        public static let provisionedThroughputExceeded = Code(rawValue: "ProvisionedThroughputExceededException")
        /// The service is throttling requests.
        public static let throttling = Code(rawValue: "ThrottlingException")
        /// The account's request rate is over its limit.
        public static let requestLimitExceeded = Code(rawValue: "RequestLimitExceeded")
        /// Another transaction holds one of the items.
        public static let transactionConflict = Code(rawValue: "TransactionConflictException")
        /// A `ClientRequestToken` was reused with a different request.
        public static let idempotentParameterMismatch = Code(rawValue: "IdempotentParameterMismatchException")
        /// The service failed.
        public static let internalServerError = Code(rawValue: "InternalServerError")
        /// The service could not be reached or did not answer in time.
        public static let serviceUnavailable = Code(rawValue: "ServiceUnavailable")
    }

    /// Why one action of a transaction was cancelled, in the order of the request's actions.
    public struct CancellationReason: Sendable, Hashable {
        /// `None`, `ConditionalCheckFailed`, `ValidationError`, `TransactionConflict`, …
        public var code: String
        public var message: String?
        /// The item as it was, when `ReturnValuesOnConditionCheckFailure` was `ALL_OLD`.
        public var item: Item?

        public init(code: String, message: String? = nil, item: Item? = nil) {
            self.code = code
            self.message = message
            self.item = item
        }

        /// The action was not the cause.
        public static let none = CancellationReason(code: "None")
    }

    public var code: Code
    public var message: String
    /// For ``Code/transactionCanceled``: one reason per action, in request order.
    public var cancellationReasons: [CancellationReason]
    /// For ``Code/conditionalCheckFailed`` with `ALL_OLD`: the item as it was.
    public var item: Item?

    public init(_ code: Code, _ message: String, cancellationReasons: [CancellationReason] = [], item: Item? = nil) {
        self.code = code
        self.message = message
        self.cancellationReasons = cancellationReasons
        self.item = item
    }

    /// `"<code>: <message>"`.
    public var description: String { "\(code.rawValue): \(message)" }

    /// Whether a retry of the same request may succeed (throttling, conflicts, service failures).
    public var isRetryable: Bool {
        [
            .provisionedThroughputExceeded, .throttling, .requestLimitExceeded, .transactionConflict,
            .internalServerError, .serviceUnavailable,
        ].contains(code)
    }
}
