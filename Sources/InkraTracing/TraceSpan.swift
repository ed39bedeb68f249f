/// One timed piece of a request's work, as an X-Ray subsegment records it: a call to DynamoDB, a
/// wait before a retry, the model call, the key fetch, the give-back.
///
/// It holds what X-Ray's segment documents name and nothing of the request's content: operation
/// and table names, an HTTP status, a URL without its query, counts. Its fields follow "AWS X-Ray
/// segment documents" (https://docs.aws.amazon.com/xray/latest/devguide/xray-api-segmentdocuments.html).
package struct TraceSpan: Sendable, Hashable {
    /// What kind of call the span is: X-Ray's `namespace`.
    package enum Namespace: String, Sendable, Hashable {
        /// A call to an AWS service made through an SDK (`aws`).
        case aws
        /// A call to another downstream service (`remote`).
        case remote
    }

    /// The span's name (at most 200 characters in X-Ray).
    package var name: String
    /// The span's id: 16 hex digits.
    package var id: String
    /// The id of the span it is under, or `nil` for a span directly under the invocation.
    package var parentID: String?
    /// `aws` or `remote` for a downstream call; `nil` for local work.
    package var namespace: Namespace?
    /// When the span started, in seconds since 1970 (X-Ray's unit).
    package var start: Double
    /// When it ended, in seconds since 1970; `nil` while it runs.
    package var end: Double?
    /// For an AWS call: the operation (`TransactWriteItems`).
    package var operation: String?
    /// For an AWS call: the region.
    package var region: String?
    /// For a DynamoDB call: the table.
    package var tableName: String?
    /// For an AWS call: how many times it was tried again.
    package var retries: Int?
    /// For a DynamoDB call: the capacity units DynamoDB said it consumed, when it said.
    package var consumedCapacity: Double?
    /// For an HTTP call: the method.
    package var method: String?
    /// For an HTTP call: scheme, host and path, never the query.
    package var url: String?
    /// For an HTTP call: the status of the last answer.
    package var status: Int?
    /// A client error (a 4xx): X-Ray's `error`.
    package var error = false
    /// A server error, a timeout, a dropped connection: X-Ray's `fault`.
    package var fault = false
    /// Throttled (a 429, DynamoDB's throughput errors): X-Ray's `throttle`.
    package var throttle = false
    /// What went wrong, in the package's own words (a status, a timeout), never a caller's text.
    package var cause: String?

    /// A span that starts at `start`.
    package init(name: String, id: String, parentID: String?, namespace: Namespace? = nil, start: Double) {
        self.name = name
        self.id = id
        self.parentID = parentID
        self.namespace = namespace
        self.start = start
    }

    /// Marks the span's outcome from an HTTP status: 429 throttled (and an error), other 4xx an
    /// error, 5xx a fault, as X-Ray's SDKs mark them.
    package mutating func record(status: Int) {
        self.status = status
        switch status {
        case 429:
            throttle = true
            error = true
        case 400..<500: error = true
        case 500...: fault = true
        default: break
        }
    }

    /// `url` without its query and fragment.
    package static func plainURL(_ url: String) -> String {
        var text = url
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = String(text[..<cut]) }
        return text
    }
}
