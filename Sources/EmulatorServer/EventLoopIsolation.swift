import NIOCore
import NIOPosix

/// An actor whose executor is one of NIO's shared event loops: code isolated to it runs on that
/// loop's thread.
///
/// With ``EventLoopExecutor`` installed, Swift's generic executor is the event loops too, but a
/// hop to it is still a job queued on a loop, and a request's functions hopped about thirty times
/// between them. Isolated to the loop it is already on, a request's `nonisolated(nonsending)`
/// functions (every async function of this package) run where they are called, and those hops
/// become checks that pass.
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
