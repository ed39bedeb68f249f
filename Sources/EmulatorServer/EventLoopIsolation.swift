import NIOCore
import NIOPosix

/// An actor whose executor is one of NIO's shared event loops: code isolated to it runs on that
/// loop's thread, as a job the loop queues.
///
/// Where ``EventLoopExecutor`` is installed, the local servers run each request's own work (from
/// the gateway to the table and back) isolated to the actor of its connection's loop, and the
/// package's `nonisolated(nonsending)` functions below stay there. That work then runs as one job
/// on the loop instead of inline in Hummingbird's task, and the requests that arrived in one turn
/// of the loop run theirs one after another. Run inline, the same code cost 46 µs of CPU a request
/// under load, against 28 µs when it ran as queued jobs (the code one request's work used still
/// being in the caches for the next is the likely reason); BENCHMARKS.md as of 2026-11-24,
/// "afternoon", in its git history, measured under the emulator's former global-enqueue hook.
/// Under NIO's installer, which ``EventLoopExecutor`` uses now, BENCHMARKS.md has the rate.
actor EventLoopIsolation {
    /// The loop.
    nonisolated let loop: any EventLoop

    private init(loop: any EventLoop) {
        self.loop = loop
    }

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        loop.executor.asUnownedSerialExecutor()
    }

    /// Runs `operation` isolated to the loop.
    func run<T: Sendable>(_ operation: () async -> T) async -> T {
        await operation()
    }

    /// One for each loop of NIO's shared group, made once.
    private static let shared = MultiThreadedEventLoopGroup.singleton.makeIterator().map(EventLoopIsolation.init)

    /// The isolation of a loop of the shared group; `nil` for any other loop.
    static func of(_ loop: any EventLoop) -> EventLoopIsolation? {
        shared.first { $0.loop === loop }
    }
}
