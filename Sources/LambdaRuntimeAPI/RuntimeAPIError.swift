/// A failure talking to the Lambda Runtime API.
package enum RuntimeAPIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The connection failed or closed; retrying may help.
    case connection(String)
    /// The Runtime API answered something that is not HTTP as expected.
    case protocolError(String)
    /// The Runtime API answered with an unexpected status.
    case status(Int, String)
    /// A setting (`AWS_LAMBDA_RUNTIME_API`, `AWS_XRAY_DAEMON_ADDRESS`) is missing or malformed.
    case configuration(String)

    package var description: String {
        switch self {
        case .connection(let message): "Runtime API connection failed: \(message)"
        case .protocolError(let message): "Runtime API protocol error: \(message)"
        case .status(let code, let body): "Runtime API answered HTTP \(code): \(body)"
        case .configuration(let message): message
        }
    }
}
