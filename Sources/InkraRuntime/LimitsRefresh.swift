import AWSServices
import InkraHandlers
import InkraJSON
import InkraUsage
import Logging
import Metrics

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The tier limits of `INKRA_LIMITS_PARAMETER`, read again while the sandbox is warm: an invocation
/// that starts `INKRA_LIMITS_MAX_AGE` seconds or more after the last read reads the parameter
/// before it runs, so an owner's change reaches every warm sandbox within that time.
///
/// A read that fails, or that answers limits that are not valid, changes nothing: the last good
/// limits stay, the next read waits another max age, and the failure is logged without the
/// parameter's value and counted as `LimitsRefreshFailure`.
actor LimitsRefresh {
    /// Reads the parameter's value.
    let read: @Sendable () async throws -> String
    /// The parameter's name, for the log.
    let name: String
    /// Seconds a read is kept.
    let maxAge: TimeInterval
    let logger: Logger
    let metrics: any MetricsFactory
    /// The limits in force.
    private(set) var limits: TierLimits
    /// When they were read, on the invocations' clock: the first invocation's instant for the
    /// limits read at start (which may be a recorded event's, under `INKRA_CLOCK=request-time`).
    private var readAt: Date?

    /// A refresher holding the limits read at start.
    init(
        name: String, limits: TierLimits, maxAge: TimeInterval, logger: Logger,
        metrics: any MetricsFactory = MetricsSystem.factory,
        read: @escaping @Sendable () async throws -> String
    ) {
        self.name = name
        self.limits = limits
        self.maxAge = maxAge
        self.logger = logger
        self.metrics = metrics
        self.read = read
    }

    /// The limits for an invocation at `instant`: read again first when the last read is
    /// `maxAge` old.
    func limits(at instant: Date) async -> TierLimits {
        guard let last = readAt else {
            readAt = instant
            return limits
        }
        guard instant.timeIntervalSince(last) >= maxAge else { return limits }
        readAt = instant
        let text: String
        do {
            text = try await read()
        } catch {
            // The service's error type (AccessDeniedException, ParameterNotFound…), never a value.
            let type = (error as? AWSServiceError)?.type ?? "RequestFailed"
            failed(["reason": "unreadable", "error": "\(type)"])
            return limits
        }
        do {
            limits = try TierLimits(json: Data(text.utf8), source: "SSM parameter \(name)")
        } catch {
            failed(["reason": "invalid"])
        }
        return limits
    }

    private func failed(_ metadata: Logger.Metadata) {
        Counter(label: MetricName.limitsRefreshFailure.rawValue, dimensions: [], factory: metrics).increment()
        logger.error(
            "the limits parameter could not be read again; the last good limits stay",
            metadata: metadata.merging(["parameter": "\(name)"]) { old, _ in old })
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

extension LimitsRefresh {
    /// `built`, its limits read again from `parameter` every `INKRA_LIMITS_MAX_AGE` seconds of the
    /// invocations' time, starting from `limits`, read at start; `make` builds it with new ones.
    /// - Throws: ``ConfigurationError`` when the SSM client cannot be configured.
    static func function(
        parameter: String, limits: TierLimits, configuration: Configuration,
        clock: @escaping @Sendable () -> Date, logger: Logger, built: any EventHandler,
        make: @escaping @Sendable (TierLimits) async throws -> any EventHandler
    ) throws(ConfigurationError) -> any EventHandler {
        let ssm: AWSJSONService
        do {
            ssm = try AWSJSONService.ssm(configuration.aws, now: clock)
        } catch {
            throw ConfigurationError("INKRA_LIMITS_PARAMETER", "\(error)")
        }
        let refresh = LimitsRefresh(
            name: parameter, limits: limits, maxAge: configuration.limitsMaxAge, logger: logger
        ) { try await ssm.parameter(named: parameter) }
        return RefreshingLimits(refresh: refresh, limits: limits, function: built, logger: logger, make: make)
    }
}
