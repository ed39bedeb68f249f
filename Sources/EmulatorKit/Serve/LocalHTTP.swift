import HTTPText
import InkraJSON

/// An HTTP request as the local servers received it, independent of the server framework.
package struct LocalHTTPRequest: Sendable {
    /// The method, such as `POST`.
    package var method: String
    /// The path, without the query string, as sent (percent-encoded).
    package var path: String
    /// The raw query string, without `?`; empty when there is none.
    package var query: String
    /// The header fields in the order received, names as sent.
    package var headers: [(name: String, value: String)]
    /// The body.
    package var body: [UInt8]
    /// The client's address.
    package var sourceIP: String
    /// The protocol, such as `HTTP/1.1`.
    package var httpVersion: String

    /// Creates a request.
    package init(
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
    package func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value of a header, ignoring case, in order.
    package func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }
}

/// An HTTP response for the local servers to write.
package struct LocalHTTPResponse: Sendable {
    /// The status code.
    package var status: Int
    /// The header fields, names as they are to be written.
    package var headers: [(name: String, value: String)]
    /// The body.
    package var body: [UInt8]

    /// Creates a response.
    package init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, ignoring case.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveEquals(name) }?.value
    }
}
