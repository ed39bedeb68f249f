import Synchronization

/// A gate a test opens when it is ready: whoever waits at it (a stub server's answer, a model's
/// reply) goes on only then, so a test needs no delay long enough to outlast a busy machine.
package final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    /// A closed gate.
    package init() {}

    /// Returns once the gate is open.
    package func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if !state.open { state.waiting.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }

    /// Opens the gate for those waiting and for all who come later.
    package func open() {
        let waiting = state.withLock { state in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
