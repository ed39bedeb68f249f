/// What the testing library throws when a value is not what it reads or a script says to fail:
/// a result that is not a proxy response or an authorizer's answer, a ``ScriptedGenerator`` step
/// that fails, a claim a ``TestUserPool`` token cannot carry. Its description says what is wrong.
public struct TestFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var description: String

    /// A failure saying what is wrong.
    public init(_ description: String) { self.description = description }
}
