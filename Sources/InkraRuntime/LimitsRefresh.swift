import AWSServices
import CoreMetrics
import InkraHandlers
import InkraJSON
import InkraTime
import InkraUsage
import Logging

/// Where the tier limits are read again from while the functions run: the SSM parameter of
/// `INKRA_LIMITS_PARAMETER`, or a limits file (`INKRA_LIMITS_FILE`, `serve --limits`).
package struct LimitsSource: Sendable {
    /// What it is, for the log and errors: `SSM parameter /inkra/limits`, `file limits.json`.
    let name: String
    /// Reads its JSON.
    let read: @Sendable () async throws -> [UInt8]
    /// Whether the first invocation reads it again: a file, which costs no request, so that a
    /// change made between start-up and the first invocation is not kept a max age longer. An SSM
    /// parameter read moments before at start is not read again before the max age.
    let readAtFirstInvocation: Bool

    /// A source of a name and a read.
    init(name: String, readAtFirstInvocation: Bool = false, read: @escaping @Sendable () async throws -> [UInt8]) {
        self.name = name
        self.readAtFirstInvocation = readAtFirstInvocation
        self.read = read
    }

    /// A limits file, read again whole each time.
    package static func file(_ path: String) -> LimitsSource {
        LimitsSource(name: "file \(path)", readAtFirstInvocation: true) { try FileBytes.read(atPath: path) }
    }

    /// An SSM parameter, read through `ssm`.
    static func parameter(_ name: String, ssm: AWSJSONService) -> LimitsSource {
        LimitsSource(name: "SSM parameter \(name)") { try await Array(ssm.parameter(named: name).utf8) }
    }
}

/// The tier limits of a ``LimitsSource``, read again while the functions run: an invocation that
/// starts `INKRA_LIMITS_MAX_AGE` seconds or more after the last read (and, for a file, the first
/// invocation) reads the source before it runs, so an owner's change reaches every warm sandbox
/// within that time.
///
/// A read that fails, or that answers limits that are not valid, changes nothing: the last good
/// limits stay, the next read waits another max age, and the failure is logged without the
/// source's content and counted as `LimitsRefreshFailure`.
package actor LimitsRefresh {
    let source: LimitsSource
    /// Seconds a read is kept.
    let maxAge: Double
    let logger: Logger
    let metrics: any MetricsFactory
    /// The limits in force.
    private(set) var limits: TierLimits
    /// When they were read, on the invocations' clock: the first invocation's instant for the
    /// limits read at start (which may be a recorded event's, under `INKRA_CLOCK=request-time`).
    private var readAt: Timestamp?

    /// A refresher holding the limits read at start.
    /// - Parameters:
    ///   - source: where the limits are read again.
    ///   - limits: the limits read at start.
    ///   - maxAge: seconds a read is kept; by default `INKRA_LIMITS_MAX_AGE`'s.
    ///   - logger: where a failed read is logged.
    ///   - metrics: where it is counted.
    package init(
        source: LimitsSource, limits: TierLimits, maxAge: Double? = nil, logger: Logger,
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.source = source
        self.limits = limits
        self.maxAge = maxAge ?? Configuration().limitsMaxAge
        self.logger = logger
        self.metrics = metrics
    }

    /// The limits for an invocation at `instant`: read again first when the last read is
    /// `maxAge` old.
    func limits(at instant: Timestamp) async -> TierLimits {
        if let last = readAt {
            guard instant.timeIntervalSince(last) >= maxAge else { return limits }
        } else {
            guard source.readAtFirstInvocation else {
                readAt = instant
                return limits
            }
        }
        readAt = instant
        let data: [UInt8]
        do {
            data = try await source.read()
        } catch {
            // The error's type (AccessDeniedException, ParameterNotFound, CocoaError…), never a value.
            let type = (error as? AWSServiceError)?.type ?? String(describing: Swift.type(of: error))
            failed(["reason": "unreadable", "error": "\(type)"])
            return limits
        }
        do {
            limits = try TierLimits(json: data, source: source.name)
        } catch {
            failed(["reason": "invalid"])
        }
        return limits
    }

    private func failed(_ metadata: Logger.Metadata) {
        Counter(label: MetricName.limitsRefreshFailure.rawValue, dimensions: [], factory: metrics).increment()
        logger.error(
            "the limits could not be read again; the last good limits stay",
            metadata: metadata.merging(["source": "\(source.name)"]) { old, _ in old })
    }
}

/// A function whose tier limits come from a ``LimitsRefresh``: each invocation runs the function
/// built with the limits in force at its instant (the context's time), built again only when they
/// change. It forwards (``ForwardingFunction``), so the recorder still sees the function it runs.
struct RefreshingLimits: ForwardingFunction {
    let refresh: LimitsRefresh
    let built: Built

    /// The function built for the current limits.
    actor Built {
        let make: @Sendable (TierLimits) async throws -> any EventHandler
        let logger: Logger
        private var limits: TierLimits
        private var function: any EventHandler

        init(
            limits: TierLimits, function: any EventHandler, logger: Logger,
            make: @escaping @Sendable (TierLimits) async throws -> any EventHandler
        ) {
            self.make = make
            self.logger = logger
            self.limits = limits
            self.function = function
        }

        /// The function for `current`: built again when the limits changed. A build that fails
        /// (its dependencies were all made at start, so none should) keeps the function in force.
        func function(for current: TierLimits) async -> any EventHandler {
            if current != limits {
                limits = current
                do {
                    function = try await make(current)
                } catch {
                    logger.error(
                        "the function could not be built with the refreshed limits; the last one stays",
                        metadata: ["error": "\(error)"])
                }
            }
            return function
        }
    }

    /// - Parameters:
    ///   - refresh: the limits and when to read them again.
    ///   - limits: the limits read at start.
    ///   - function: the function built with them.
    ///   - logger: where a failed build is logged.
    ///   - make: the function with some limits.
    init(
        refresh: LimitsRefresh, limits: TierLimits, function: any EventHandler, logger: Logger,
        make: @escaping @Sendable (TierLimits) async throws -> any EventHandler
    ) {
        self.refresh = refresh
        built = Built(limits: limits, function: function, logger: logger, make: make)
    }

    /// The function built with the limits in force at the invocation's time, read again first when
    /// they are `INKRA_LIMITS_MAX_AGE` old.
    func function(for context: InvocationContext) async -> any EventHandler {
        await built.function(for: refresh.limits(at: context.time))
    }
}

extension FunctionList {
    /// The function `name`, built from `dependencies`; with a `refresh`, built again with the
    /// limits it reads whenever they change. The runtime and the emulator both build what they run
    /// here, so what the emulator runs is what ships.
    /// - Returns: `nil` when the list has no such function.
    package func function(
        _ name: String, dependencies: Dependencies, refresh: LimitsRefresh?
    ) async throws -> (any EventHandler)? {
        guard let build = build(name) else { return nil }
        let function = try await build(dependencies)
        guard let refresh else { return function }
        return RefreshingLimits(
            refresh: refresh, limits: dependencies.limits, function: function, logger: dependencies.logger
        ) { try await build(dependencies.with(limits: $0)) }
    }
}
