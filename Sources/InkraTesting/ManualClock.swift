import Foundation
import InkraHandlers
import InkraTime
import InkraUsage
import Synchronization

/// A clock a test moves by hand, for the functions' invocation context (and the `now:` of the
/// stores and verifiers).
///
/// The functions read the request's time only from the context they are given, so a test decides
/// which hour, day and month each call falls in and steps across the windows' edges without
/// waiting:
///
/// ```swift
/// let clock = ManualClock("2026-03-10T10:00:00Z")
/// let generate = GenerateQuestions(store: store, generator: generator)
/// _ = try await generate.handle(event, context: clock.context)
/// clock.advance(by: .seconds(600))           // 10:10
/// clock.advance(toStartOfNext: .hour)        // 11:00, a new hourly window
/// clock.set("2026-04-01T00:00:00Z")          // a new month
/// ```
///
/// It is safe to read and move from any task.
public final class ManualClock: Sendable {
    private let instant: Mutex<Timestamp>

    /// A clock showing `start`.
    public init(_ start: Timestamp) {
        instant = Mutex(start)
    }

    /// A clock showing an ISO 8601 instant (`Date(iso8601:)`); by default
    /// 2026-03-10T10:00:00Z, a Tuesday morning, the instant the event builders stamp by default.
    public convenience init(_ start: String = "2026-03-10T10:00:00Z") {
        self.init(Timestamp(iso8601: start))
    }

    /// The time the clock shows.
    public var now: Timestamp { instant.withLock { $0 } }

    /// The clock as a closure: `InMemoryUsageStore(now: clock.closure)`.
    public var closure: @Sendable () -> Timestamp { { [self] in now } }

    /// An invocation's context at the time the clock shows: `generate.handle(event, context: clock.context)`.
    public var context: InvocationContext { InvocationContext(time: now) }

    /// Shows another instant, earlier or later.
    public func set(_ date: Timestamp) {
        instant.withLock { $0 = date }
    }

    /// Shows an ISO 8601 instant (`Date(iso8601:)`).
    public func set(_ text: String) {
        set(Timestamp(iso8601: text))
    }

    /// Moves the clock on (or back, for a negative duration).
    public func advance(by duration: Duration) {
        instant.withLock { $0 = $0.addingTimeInterval(duration.seconds) }
    }

    /// Moves the clock to the first second of the next UTC hour, day or month: the instant a full
    /// window of that kind opens again.
    public func advance(toStartOfNext window: UsageWindow) {
        instant.withLock { $0 = UsageWindows(at: $0).resetsAt(window) }
    }
}
