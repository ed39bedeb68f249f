import EmulatorKit
import Foundation
import InkraTime
import Logging

extension LocalServer {
    /// `serve`'s and `exec`'s start-up: the stack of `options`, on a virtual clock from `options.now`
    /// with `virtualClock`, its table seeded from `seed` (`aws dynamodb scan --output json` output),
    /// recording every API request answered to the folder `record`, and its server. `logging` sets
    /// the log up with the stack's clock before anything logs.
    /// - Throws: ``EmulatorError`` and the stack's errors, naming the file or port that is wrong.
    package static func start(
        options: EmulatorOptions, configuration: ServeConfiguration, virtualClock: Bool = false, seed: URL? = nil,
        record: URL? = nil, logging: (@escaping @Sendable () -> Timestamp) -> Void = { _ in },
        accessLog: @escaping @Sendable (String) -> Void
    ) async throws -> LocalServer {
        var options = options
        var configuration = configuration
        if virtualClock {
            // It starts at --now and flows from there, instead of --now's fixed instant.
            let clock = VirtualClock(start: options.now, real: options.clock)
            options.now = nil
            options.clock = { clock.now() }
            configuration.virtualClock = clock
        }
        logging(options.clock)
        if !EventLoopExecutor.isInstalled {
            let hint = "Swift tasks run on Swift's own pool, not on the event loops (NIO's installer could not"
            Logger(label: "inkra.serve").warning("\(hint) take over): requests cost more CPU")
        }
        let stack = try await EmulatorStack(options: options)
        if let seed {
            let scan = try TableScan(contentsOf: seed)
            try await scan.seed(stack.table, tableName: stack.options.tableName)
            note("seeded \(scan.wireItems.count) items from \(seed.relativePath)")
        }
        if let debugger = configuration.runtimeDebugger, let runtime = configuration.runtimeExecutable {
            note(debugger.attachHint(runtime: runtime))
        }
        if let record {
            let ttl = configuration.gateway.authorizerCacheTTL
            let recorder = try ServeRecorder(directory: record) {
                RecordingManifest(trustOf: stack, authorizerCacheTTL: ttl)
            }
            configuration.gateway.observers.append { recorder.record($0) }
            note("inkra-emulator: recording every API request answered to \(recorder.directory.path)")
        }
        return try await LocalServer(stack: stack, configuration: configuration, accessLog: accessLog)
    }

    /// A line on standard error.
    static func note(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
