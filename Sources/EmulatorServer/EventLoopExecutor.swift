import NIOCore
import NIOPosix
import Synchronization

/// Where a server process runs its Swift tasks.
///
/// By default Swift runs tasks on its own thread pool while the servers' sockets live on NIO's
/// event loops, so every request is handed from a loop's thread to a pool thread and back.
/// Installed, NIO's shared event loops run the tasks as well, through NIO's own, documented
/// installer (`NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()`):
/// a job Swift gives its global executor runs on the loop of the thread that enqueued it, as a
/// job of that loop.
///
/// The price of running tasks on the loops: a task that blocks its thread (a file written and
/// flushed under `--state`) also holds up the other connections of its loop.
package enum EventLoopExecutor {
    /// Where the process's Swift tasks run.
    package enum Placement: Sendable, Equatable {
        /// On Swift's own thread pool: ``install()`` was not called, or NIO could not take over
        /// (another global-executor hook is installed, or the platform has none).
        case swiftPool
        /// On NIO's shared event loops, through NIO's installer.
        case eventLoops
    }

    private static let installed = Mutex<Placement?>(nil)

    /// Where ``install()`` put the tasks.
    package static var placement: Placement {
        installed.withLock { $0 ?? .swiftPool }
    }

    /// Whether ``install()`` made the event loops Swift's global executor.
    package static var isInstalled: Bool {
        placement == .eventLoops
    }

    /// Makes NIO's shared event loops Swift's global executor, for the rest of the process.
    ///
    /// Call it from the main thread before any task is started. NIO's installer may be called
    /// only once in a process: later calls return the first one's result without calling it again.
    /// - Returns: whether the event loops now run the tasks: `false` when NIO could not take over.
    @discardableResult
    package static func install() -> Bool {
        installed.withLock { installed in
            if let installed { return installed == .eventLoops }
            let placement: Placement =
                NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
                ? .eventLoops : .swiftPool
            installed = placement
            return placement == .eventLoops
        }
    }
}
