import Foundation

/// The emulator's clock: the instant an event was recorded, set for the duration of its
/// invocation, else a fixed `--now`, else the real time.
public enum EmulatorClock {
    /// The instant of the invocation under way in this task, if any.
    @TaskLocal public static var instant: Date?

    /// A clock closure for the functions: the task's instant, else `fixed`, else the real time.
    public static func closure(fixed: Date?) -> @Sendable () -> Date {
        { instant ?? fixed ?? Date() }
    }
}
