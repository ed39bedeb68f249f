import Foundation

/// A local Lambda Runtime API as the emulator's logic sees it: where a runtime polls, and the
/// invocations handed to that runtime. EmulatorServer's `RuntimeAPIServer` serves it over HTTP.
package protocol RuntimeAPIEndpoint: Sendable {
    /// The address to give the runtime as `AWS_LAMBDA_RUNTIME_API` (`host:port`).
    var address: String { get }

    /// Hands an event to the runtime and waits for its outcome.
    /// - Parameters:
    ///   - event: the event's JSON.
    ///   - timeout: the function's timeout, in seconds.
    func invoke(_ event: [UInt8], timeout: TimeInterval) async -> RuntimeOutcome

    /// Tells waiting invocations that the runtime process ended.
    func runtimeEnded(_ reason: String) async
}
