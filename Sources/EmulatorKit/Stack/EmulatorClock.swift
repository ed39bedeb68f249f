import Foundation
import InkraHandlers

/// The emulator's clock: the instant an event was recorded, set for the duration of its
/// invocation, else a fixed `--now`, else the real time.
public enum EmulatorClock {
    /// A clock closure for the functions.
    public static func closure(fixed: Date?) -> @Sendable () -> Date {
        InvocationClock.closure(fixed: fixed)
    }
}
