import InkraJSON

/// A Lambda function: one JSON event and its invocation's context in, one JSON result out, or a
/// failed invocation.
public protocol EventHandler: Sendable {
    /// Handles one event.
    /// - Parameters:
    ///   - event: the event.
    ///   - context: the invocation: its time, deadlines, request id, trace header and logger.
    /// - Throws: ``FunctionError`` when the invocation fails (Lambda reports it as the error object).
    func handle(_ event: JSONValue, context: InvocationContext) async throws(FunctionError) -> JSONValue
}

extension EventHandler {
    /// Handles one event given as UTF-8 JSON bytes, as the Lambda Runtime API delivers it.
    /// - Parameters:
    ///   - bytes: the event.
    ///   - context: the invocation.
    /// - Throws: ``FunctionError`` naming what is wrong when the bytes are not JSON, or when the
    ///   invocation fails.
    public func handle(bytes: some Collection<UInt8>, context: InvocationContext) async throws(FunctionError)
        -> [UInt8]
    {
        let event: JSONValue
        do {
            event = try JSONParser.parse(bytes)
        } catch {
            throw FunctionError.notJSON(error)
        }
        return try await handle(event, context: context).jsonBytes
    }
}
