import InkraTime
import InkraUsage

extension UsageStore {
    /// This store for one invocation: its calls stay within the context's deadline (clean-up, such
    /// as giving a unit back, within its clean-up deadline) and go in the invocation's trace.
    ///
    /// A function calls the store it was built with through this, as the built-in functions do:
    ///
    /// ```swift
    /// let report = try await store.bound(to: context).usage(for: userID, email: nil, at: context.time, limits: limits)
    /// ```
    /// - Parameter context: the invocation.
    /// - Returns: the store bound to the invocation; a store of a test's own, which never waits, is
    ///   returned as it is.
    public func bound(to context: InvocationContext) -> any UsageStore {
        context.scope.bind(self)
    }
}
