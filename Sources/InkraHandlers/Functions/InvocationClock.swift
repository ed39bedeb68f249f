import InkraJSON
import InkraTime
import InkraUsage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The clock of the invocation under way: an instant set for the duration of one invocation
/// (the event's recorded time when replaying, or API Gateway's request time when a runtime is
/// configured so), else a fixed instant, else the real time.
package enum InvocationClock {
    /// The instant of the invocation under way in this task, if any.
    @TaskLocal package static var instant: Date?

    /// A clock closure for the functions: the task's instant, else `fixed`, else `system` (the
    /// real time, which only a composition root reads).
    package static func closure(fixed: Date? = nil, system: @escaping @Sendable () -> Date) -> @Sendable () -> Date {
        { instant ?? fixed ?? system() }
    }

    /// API Gateway's receive time in an event: `requestContext.requestTimeEpoch` (REST) or
    /// `requestContext.timeEpoch` (HTTP API), in milliseconds.
    package static func requestTime(of event: JSONValue) -> Date? {
        guard let context = event["requestContext"],
            let milliseconds = (context["requestTimeEpoch"] ?? context["timeEpoch"])?.double
        else { return nil }
        return Date(timeIntervalSince1970: milliseconds / 1000)
    }

    /// The instant a local runtime should run an event at: its request time, else the
    /// `x-inkra-recorded-at` the emulator adds to events that carry no time (authorizer events).
    package static func recordedTime(of event: JSONValue) -> Date? {
        if let time = requestTime(of: event) { return time }
        guard let text = event["x-inkra-recorded-at"]?.string else { return nil }
        return CivilTime.instant(iso8601: text)
    }
}
