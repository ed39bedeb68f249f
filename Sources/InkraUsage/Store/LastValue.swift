import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A value that depends only on an instant's whole second, kept for the last second asked for,
/// so the requests of one second share it (calendar windows, API Gateway's request time). Safe
/// to use from any thread.
package final class LastSecond<Value: Sendable>: Sendable {
    private let last = Mutex<(second: Int, value: Value)?>(nil)

    package init() {}

    /// The value for the instant's second: the kept one, or `make`'s, which is then kept.
    package func value(at instant: Date, _ make: (Date) -> Value) -> Value {
        let second = Int(instant.timeIntervalSince1970.rounded(.down))
        if let last = last.withLock({ $0 }), last.second == second { return last.value }
        let value = make(instant)
        last.withLock { $0 = (second, value) }
        return value
    }
}
