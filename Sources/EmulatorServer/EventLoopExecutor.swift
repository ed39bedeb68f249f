import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a server process runs its Swift tasks.
///
/// By default Swift runs tasks on its own thread pool while the servers' sockets live on NIO's
/// event loops, so every request is handed from a loop's thread to a pool thread and back.
/// Installed, the event loops run the tasks as well: a job Swift gives its global executor runs
/// on the loop of the thread that enqueued it (any loop of NIO's shared group, from another
/// thread), as a job of the generic executor, as Swift's own pool runs it.
///
/// That last part is what sets this apart from NIO's
/// `unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()`, which runs each
/// job as its loop's serial executor: there, every hop to the generic executor (at the start of a
/// nonisolated async function, after a call that may have changed executor) is another job queued
/// on the loop, about forty a request in Hummingbird and NIO's own code. Here those hops are
/// checks that pass, and a request's own work runs as one job on its loop's actor
/// (``EventLoopIsolation``). `serve`'s CPU per `POST /questions` fell from 73 to 68 µs, and the
/// bare Hummingbird route's on the loops from 40–45 to 35 µs (BENCHMARKS.md as of 2026-11-24,
/// "afternoon", in its git history); removing the hook cost `serve` 35 % of its rate on
/// 2026-11-25 (BENCHMARKS.md).
///
/// The price of running tasks on the loops: a task that blocks its thread (a file written and
/// flushed under `--state`) also holds up the other connections of its loop.
package enum EventLoopExecutor {
    /// Where the process's Swift tasks run.
    package enum Placement: Sendable, Equatable {
        /// On Swift's own thread pool: ``install()`` was not called, or could not take over.
        case swiftPool
        /// On the event loops, each job as a job of the generic executor (this type's hook).
        case eventLoops
        /// On the event loops through NIO's installer, where every hop to the generic executor
        /// is a job queued on the loop (where this type's hook could not be set).
        case eventLoopsQueuingHops
    }

    private static let installed = Mutex<Placement?>(nil)

    /// Where ``install()`` put the tasks.
    package static var placement: Placement {
        installed.withLock { $0 ?? .swiftPool }
    }

    /// Whether ``install()`` made the event loops Swift's global executor, one way or the other.
    package static var isInstalled: Bool {
        placement != .swiftPool
    }

    /// Makes NIO's shared event loops Swift's global executor, for the rest of the process.
    ///
    /// Call it from the main thread before any task is started. Later calls return the first
    /// one's result without trying again.
    /// - Returns: whether the event loops now run the tasks: `false` when the runtime has no
    ///   global-enqueue hook, or another one is installed already.
    @discardableResult
    package static func install() -> Bool {
        installed.withLock { installed in
            if let installed { return installed != .swiftPool }
            // NIO's own installer where ours cannot go in (an executor reference of another
            // layout): every hop is a queued job there, but the tasks still run on the loops.
            let placement: Placement =
                if GlobalEnqueueHook.install() {
                    .eventLoops
                } else if NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() {
                    .eventLoopsQueuingHops
                } else {
                    .swiftPool
                }
            installed = placement
            return placement != .swiftPool
        }
    }
}

/// The Swift runtime's hook for jobs given to the global executor (`swift_task_enqueueGlobal_hook`,
/// the one NIO's installer uses too), pointed at the event loops.
private enum GlobalEnqueueHook {
    /// The runtime's own enqueue, which the hook is handed and does not call.
    typealias Original = @convention(thin) (UnownedJob) -> Void
    /// The hook's type: the runtime calls it with Swift's calling convention.
    typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    /// Whether an executor reference is the two words the runtime's generic executor is made of.
    static let hasTwoWordExecutors = MemoryLayout<UnownedSerialExecutor>.size == 2 * MemoryLayout<Int>.size

    /// Swift's generic executor as the runtime represents it, `SerialExecutorRef::generic()`: no
    /// identity and no implementation, two null words. Read only once ``hasTwoWordExecutors`` has
    /// held, and never wrapped in an `Optional`: a null identity is how `Optional` spells `nil`.
    static let generic = unsafeBitCast((0, 0) as (Int, Int), to: UnownedSerialExecutor.self)

    /// Runs the job on the current thread's loop, or on any loop of the group from another thread.
    static let hook: Hook = { job, _ in
        let generic = generic
        MultiThreadedEventLoopGroup.singleton.any().execute { job.runSynchronously(on: generic) }
    }

    /// Installs the hook where the runtime has one and no other is installed.
    static func install() -> Bool {
        guard hasTwoWordExecutors, let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook") else {
            return false
        }
        let slot = symbol.assumingMemoryBound(to: UnsafeRawPointer?.self)
        guard slot.pointee == nil else { return false }
        slot.pointee = unsafeBitCast(hook, to: UnsafeRawPointer.self)
        return true
    }
}
