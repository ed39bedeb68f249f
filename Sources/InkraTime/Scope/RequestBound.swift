/// A dependency whose calls a request's ``RequestScope`` bounds and traces: the usage store, a
/// table client, the model and Cognito clients.
///
/// A function binds each dependency to its invocation's scope and calls the bound copy, so the
/// deadline and the trace travel with the calls as values, never through the task.
package protocol RequestBound: Sendable {
    /// A copy of this dependency whose calls run in `scope`.
    func bound(to scope: RequestScope) -> Self
}

extension RequestScope {
    /// `dependency` bound to this scope when its calls can be (``RequestBound``), else
    /// `dependency` itself (a test's stand-in, which never waits).
    package func bind<Dependency>(_ dependency: Dependency) -> Dependency {
        guard let bindable = dependency as? any RequestBound else { return dependency }
        return bindable.bound(to: self) as? Dependency ?? dependency
    }
}
