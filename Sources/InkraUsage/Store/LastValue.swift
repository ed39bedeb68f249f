import Synchronization

/// A value computed from a key, kept for the last key asked for, so the requests that ask again
/// share it: the calendar windows of one second, the pseudonym of the user a request is for
/// (asked for each item it reads or writes). Safe to use from any thread.
package final class LastValue<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let last = Mutex<(key: Key, value: Value)?>(nil)

    package init() {}

    /// The value for `key`: the kept one, or `make`'s, which is then kept.
    package func value(for key: Key, _ make: () -> Value) -> Value {
        if let last = last.withLock({ $0 }), last.key == key { return last.value }
        let value = make()
        last.withLock { $0 = (key, value) }
        return value
    }
}
