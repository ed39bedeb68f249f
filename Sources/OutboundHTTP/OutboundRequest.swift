import HTTPText
import NIOHTTP1

/// One HTTP request to send: an `http` or `https` URL, a method, headers and a body.
///
/// `Host` and, when there is a body or the method is not `GET`, `Content-Length` are written by
/// the client; the caller's headers are sent as they are, after them.
package struct OutboundRequest: Sendable {
    /// The method.
    package var method: HTTPMethod
    /// The absolute URL.
    package var url: HTTPURL
    /// Headers, in order.
    package var headers: [(String, String)]
    /// The body.
    package var body: [UInt8]

    /// Creates a request.
    package init(method: HTTPMethod = .GET, url: HTTPURL, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// An answer: its status, its headers and its whole body.
package struct OutboundResponse: Sendable {
    /// The status code.
    package var status: Int
    /// The headers; look-ups by name ignore case.
    package var headers: HTTPHeaders
    /// The body, decoded from `Content-Length`, chunked or read-until-close framing.
    package var body: [UInt8]

    /// Creates a response.
    package init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
