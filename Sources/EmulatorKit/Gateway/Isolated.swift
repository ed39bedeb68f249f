/// Runs `operation` isolated to `actor` (`nil`: the generic executor).
///
/// A closure handed to an API that takes a `@concurrent` closure, such as `TaskLocal.withValue`,
/// starts on the generic executor. Called from such a closure with the caller's `#isolation`,
/// this puts the work back where the caller was, and with it every `nonisolated(nonsending)`
/// function below (every async function of this package): under `serve`, a request stays on its
/// event loop instead of taking a queued job on the loop for each hop to the generic executor.
func isolated<T>(to actor: isolated (any Actor)?, _ operation: () async -> T) async -> T {
    await operation()
}
