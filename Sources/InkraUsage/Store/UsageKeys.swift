import SingleTable

/// The single table's keys and attribute names (docs/table.md).
enum UsageKeys {
    static let partitionKey = "PK"
    static let sortKey = "SK"
    /// The sparse index: refusals by date (`DATE#`), unanswered calls by day (`REPAIR#`).
    static let index = "GSI1"
    static let indexPartitionKey = "GSI1PK"
    static let indexSortKey = "GSI1SK"

    /// A user's partition is this prefix and the keyed pseudonym of the user id
    /// (``ServerSecret/userKey(_:)``): the table holds no user id (`TableUsageStore.partition(of:)`).
    static let userPrefix = "USER#"
    static func month(_ month: String) -> String { "USAGE#\(month)" }
    static func rateLimit(_ window: String) -> String { "RATELIMIT#\(window)" }
    static func idempotency(_ key: String) -> String { "IDEMPOTENCY#\(key)" }
    static func date(_ day: String) -> String { "DATE#\(day)" }
    /// GSI1's partition of the calls charged on a day and not yet answered.
    static func repair(_ day: String) -> String { "REPAIR#\(day)" }
    static func refund(_ reference: String) -> String { "REFUND#\(reference)" }
    /// The user's standing refusal (`TableUsageStore.standingRefusal(_:_:)`).
    static let refused = "REFUSED"
    /// The partition of a deleted account's usage, under the keyed hash of its email
    /// (``ServerSecret/emailKey(_:)``), until its windows end.
    static func email(_ emailKey: String) -> String { "EMAIL#\(emailKey)" }

    static func key(partition: String, sort: String) -> Item {
        [partitionKey: .s(partition), sortKey: .s(sort)]
    }

    static func key(emailKey: String, sort: String) -> Item {
        [partitionKey: .s(email(emailKey)), sortKey: .s(sort)]
    }

    /// Seconds an item is kept after its window starts, for DynamoDB TTL on `expiresAt`.
    enum Retention {
        static let month = 400 * 86_400
        static let day = 3 * 86_400
        static let hour = 2 * 86_400
        static let idempotency = 86_400
    }
}
