import Synchronization

/// Starts `serve --bootstrap`'s runtime again for the invocation that follows its failure, as
/// Lambda does: an execution environment whose Init failed, or whose runtime exited, is not used
/// again, and the next invocation gets a new one with a new Init ("Understand the Lambda execution
/// environment lifecycle": Init errors; a runtime's crash resets the environment, and the next
/// invocation's Init is a "suppressed init").
///
/// However many invocations arrive together after a failure, one start is made and all of them
/// wait for it; the start itself checks the failure is still there, so one that began after
/// another start had cleared it does nothing.
final class RuntimeRestart: Sendable {
    private let start = Mutex<(@Sendable () async -> Void)?>(nil)
    private let running = Mutex<Task<Void, Never>?>(nil)

    /// A restart that does nothing until ``install(_:)``.
    init() {}

    /// Sets what starts the runtime again (the server's own, once it is built).
    func install(_ start: @escaping @Sendable () async -> Void) {
        self.start.withLock { $0 = start }
    }

    /// Before an invocation: when the runtime behind `server` failed to start or ended, starts a
    /// new one (or joins the start under way) and waits until it is launched; the invocation then
    /// waits in the queue for its first poll, as an invocation waits for a sandbox's Init.
    func ifFailed(_ server: RuntimeAPIServer) async {
        guard await server.hasFailed else { return }
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
