/// Why a request got no answer. The message names the endpoint and the cause.
package struct OutboundHTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: String {
            case invalidURL, connectFailed, tlsFailed, connectionClosed, timedOut, responseTooLarge, malformedResponse,
                shutDown
        }

        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The URL is not an absolute `http` or `https` URL with a host.
        package static let invalidURL = Code(.invalidURL)
        /// No connection could be made (the name did not resolve, or the connection was refused).
        package static let connectFailed = Code(.connectFailed)
        /// The TLS handshake failed (certificate not trusted, name mismatch, protocol error).
        package static let tlsFailed = Code(.tlsFailed)
        /// The connection closed before the whole answer arrived.
        package static let connectionClosed = Code(.connectionClosed)
        /// The answer did not arrive within the request's timeout.
        package static let timedOut = Code(.timedOut)
        /// The answer's body was larger than the request allows.
        package static let responseTooLarge = Code(.responseTooLarge)
        /// The answer was not HTTP/1.x.
        package static let malformedResponse = Code(.malformedResponse)
        /// The client was shut down.
        package static let shutDown = Code(.shutDown)

        package var description: String { kind.rawValue }
    }

    /// The kind of failure.
    package var code: Code
    /// What happened, naming the endpoint.
    package var message: String

    /// Creates an error.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }
}
