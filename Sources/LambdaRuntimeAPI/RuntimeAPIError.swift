/// A failure talking to the Lambda Runtime API or the X-Ray daemon, with a stable code.
package struct RuntimeAPIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable reason code.
    package enum Code: String, Sendable, CustomStringConvertible {
        package var description: String { rawValue }

        /// The connection failed or closed; retrying may help.
        case connection
        /// The Runtime API answered something that is not HTTP as expected.
        case protocolError
        /// The Runtime API answered with an unexpected status (``RuntimeAPIError/status``).
        case status
        /// A setting (`AWS_LAMBDA_RUNTIME_API`, `AWS_XRAY_DAEMON_ADDRESS`) is missing or malformed.
        case configuration
    }

    /// The reason.
    package var code: Code
    /// What went wrong; for ``Code/status``, the body the Runtime API answered.
    package var message: String
    /// The HTTP status, for ``Code/status``.
    package var status: Int?

    /// Creates an error.
    package init(_ code: Code, _ message: String, status: Int? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }

    /// The Runtime API answered `status` with `body`.
    static func status(_ status: Int, _ body: [UInt8]) -> RuntimeAPIError {
        RuntimeAPIError(.status, String(decoding: body, as: UTF8.self), status: status)
    }

    package var description: String {
        switch code {
        case .connection: "Runtime API connection failed: \(message)"
        case .protocolError: "Runtime API protocol error: \(message)"
        case .status: "Runtime API answered HTTP \(status ?? 0): \(message)"
        case .configuration: message
        }
    }
}
