import EmulatorKit
import Synchronization

/// Starts `serve --bootstrap`'s runtime again for the invocation after its failure, as Lambda gives
/// the next invocation a new execution environment after a failed Init or a crash. Invocations
/// arriving together share one start, which does nothing if another start already cleared the failure.
final class RuntimeRestart: Sendable {
    private let start = Mutex<(@Sendable () async -> Void)?>(nil)
    private let running = Mutex<Task<Void, Never>?>(nil)

    /// Sets what starts the runtime again (the server's own, once it is built).
    func install(_ start: @escaping @Sendable () async -> Void) {
        self.start.withLock { $0 = start }
    }

    /// Before an invocation: when the runtime behind `server` failed to start or ended, starts a
    /// new one (or joins the start under way) and waits until it is launched; the invocation then
    /// waits in the queue for its first poll, as an invocation waits for a sandbox's Init.
    func ifFailed(_ server: RuntimeAPIServer) async {
        guard await server.queue.hasFailed else { return }
        let task = running.withLock { current -> Task<Void, Never>? in
            if let current { return current }
            guard let relaunch = self.start.withLock({ $0 }) else { return nil }
            let task = Task {
                await relaunch()
                self.running.withLock { $0 = nil }
            }
            current = task
            return task
        }
        await task?.value
    }
}
