import NIOCore
import NIOPosix
import Synchronization

/// Where a server process runs its Swift tasks.
///
/// By default Swift runs tasks on its own thread pool while the servers' sockets live on NIO's
/// event loops, so every request is handed from a loop's thread to a pool thread and back.
/// Installed, the event loops run the tasks as well: a request stays on its connection's thread
/// from first byte to last, and `serve`'s CPU per `POST /questions` fell from 136 to 106 µs
/// (BENCHMARKS.md, "2026-11-24, early morning"). The price: a task that blocks its thread (a file
/// written and flushed under `--state`) now also holds up the other connections of its loop.
public enum EventLoopExecutor {
    private static let installed = Mutex<Bool?>(nil)

    /// Whether ``install()`` made the event loops Swift's global executor.
    public static var isInstalled: Bool {
        installed.withLock { $0 ?? false }
    }

    /// Makes NIO's shared event loops Swift's global executor, for the rest of the process.
    ///
    /// Call it from the main thread before any server starts. Later calls return the first one's
    /// result without trying again.
    /// - Returns: whether the event loops now run the tasks (NIO declines on some platforms).
    @discardableResult
    public static func install() -> Bool {
        installed.withLock { installed in
            if let installed { return installed }
            let done = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
            installed = done
            return done
        }
    }
}
