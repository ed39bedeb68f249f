import InkraJSON

/// An HTTP request as the local servers received it, independent of the server framework.
public struct LocalHTTPRequest: Sendable {
    /// The method, such as `POST`.
    public var method: String
    /// The path, without the query string, as sent (percent-encoded).
    public var path: String
    /// The raw query string, without `?`; empty when there is none.
    public var query: String
    /// The header fields in the order received, names as sent.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]
    /// The client's address.
    public var sourceIP: String
    /// The protocol, such as `HTTP/1.1`.
    public var httpVersion: String

    /// Creates a request.
    public init(
        method: String,
        path: String,
        query: String = "",
        headers: [(name: String, value: String)] = [],
        body: [UInt8] = [],
        sourceIP: String = "127.0.0.1",
        httpVersion: String = "HTTP/1.1"
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.sourceIP = sourceIP
        self.httpVersion = httpVersion
    }

    /// The first value of a header, ignoring case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value of a header, ignoring case, in order.
    public func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }
}

/// An HTTP response for the local servers to write.
public struct LocalHTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields, names as they are to be written.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, ignoring case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveEquals(name) }?.value
    }
}
