import Foundation
import InkraJSON

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

    /// Hands an event to the runtime under an X-Ray trace header (`Root=…;Parent=…;Sampled=1`)
    /// and waits for its outcome.
    func invoke(_ event: [UInt8], timeout: TimeInterval, traceHeader: String) async -> RuntimeOutcome

    /// Tells waiting invocations that the runtime process ended.
    func runtimeEnded(_ reason: String) async
}

/// Where the segment documents a runtime sends to its X-Ray daemon address can be read back, by
/// trace: what `run-runtime` and `serve` listen with (EmulatorServer's `SegmentCollector`).
package protocol TraceSource: Sendable {
    /// The address to give the runtime as `AWS_XRAY_DAEMON_ADDRESS` (`127.0.0.1:port`).
    var address: String { get }

    /// The segment document of the trace `root`, once it has come, or `nil` when none came
    /// within `timeout`.
    func document(forTrace root: String, within timeout: Duration) async -> JSONValue?
}
