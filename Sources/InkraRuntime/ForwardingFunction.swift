import InkraHandlers
import InkraJSON

/// A function that hands each invocation to another, chosen for it: ``RefreshingLimits`` runs the
/// function built with the limits in force at the invocation's time.
///
/// What looks at the function an invocation runs, rather than only at its answer (the
/// ``Recorder``, which asks the authorizer for the claims it verified), finds it through
/// ``innermost(_:for:)``, so that a wrapper never hides a function's kind.
protocol ForwardingFunction: EventHandler {
    /// The function that runs the invocation of `context`.
    func function(for context: InvocationContext) async -> any EventHandler
}

extension ForwardingFunction {
    func handle(_ event: JSONValue, context: InvocationContext) async throws(FunctionError) -> JSONValue {
        try await function(for: context).handle(event, context: context)
    }
}

/// The function that runs the invocation of `context`: `function` itself, or what the wrappers
/// around it forward that invocation to, each asked once.
func innermost(_ function: any EventHandler, for context: InvocationContext) async -> any EventHandler {
    var function = function
    while let forwarding = function as? any ForwardingFunction {
        function = await forwarding.function(for: context)
    }
    return function
}
