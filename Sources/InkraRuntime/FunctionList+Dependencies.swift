import InkraAuth
import InkraHandlers
import InkraTime
import InkraUsage
import Logging
import Synchronization

extension FunctionList {
    /// What a function is built from: the settings' store, token verifier, question generator,
    /// user directory, tier limits and logger. Each dependency is made once, on first use, and
    /// shared by every build of the function (a build again with refreshed limits reuses them).
    public struct Dependencies: Sendable {
        /// The tiers' limits in force.
        public let limits: TierLimits
        /// The function's logger (`inkra.<_HANDLER>`), the token verifier's; a function logs through
        /// its invocation's (`InvocationContext.logger`), which carries the request id.
        let logger: Logger
        /// `INKRA_UPGRADE_URL`, sent with the monthly 429.
        public var upgradeURL: String { shared.configuration.upgradeURL }
        let shared: SharedDependencies

        /// The usage store of `INKRA_STORE`.
        /// - Throws: an error naming the setting that is missing or malformed.
        public func usageStore() async throws -> any UsageStore { try await shared.store() }

        /// The verifier of the user pool's tokens (`COGNITO_*`, `INKRA_JWKS_FILE`).
        /// - Throws: an error naming the setting that is missing or malformed.
        public func tokenVerifier() throws -> TokenVerifier { try shared.verifier(logger: logger) }

        /// The model of `INKRA_LLM_*`, else the built-in question generator.
        /// - Throws: an error naming the setting that is missing or malformed.
        public func questionGenerator() async throws -> any QuestionGenerator { try await shared.generator() }

        /// The Cognito user pool whose users `deleteAccount` deletes; `nil` when it deletes none.
        /// - Throws: an error naming the setting that is missing or malformed.
        public func userDirectory() throws -> (any UserDirectory)? { try shared.directory() }

        init(limits: TierLimits, logger: Logger, shared: SharedDependencies) {
            self.limits = limits
            self.logger = logger
            self.shared = shared
        }

        /// Dependencies of given parts, read from no setting: how a stack that is not a Lambda
        /// sandbox (the emulator) runs the listed functions on its own table, keys and generator.
        /// - Parameters:
        ///   - limits: the tiers' limits.
        ///   - logger: the functions' logger.
        ///   - upgradeURL: sent with the monthly 429.
        ///   - store: the usage store.
        ///   - verifier: the verifier of the pool's tokens.
        ///   - generator: the question generator.
        ///   - directory: the users `deleteAccount` deletes; `nil`: none.
        ///   - clock: the stack's clock, for any part made later (none of the standard list's).
        package init(
            limits: TierLimits, logger: Logger, upgradeURL: String, store: any UsageStore, verifier: TokenVerifier,
            generator: any QuestionGenerator, directory: (any UserDirectory)?,
            clock: @escaping @Sendable () -> Timestamp
        ) {
            var configuration = Configuration()
            configuration.upgradeURL = upgradeURL
            let shared = SharedDependencies(configuration: configuration, clock: clock)
            shared.made.withLock {
                $0 = SharedDependencies.Made(
                    store: store, verifier: verifier, generator: generator, directory: .some(directory))
            }
            self.init(limits: limits, logger: logger, shared: shared)
        }

        /// The same dependencies with other limits.
        func with(limits: TierLimits) -> Dependencies {
            Dependencies(limits: limits, logger: logger, shared: shared)
        }
    }
}

/// The dependencies of ``FunctionList/Dependencies``, each made once from the settings.
final class SharedDependencies: Sendable {
    let configuration: Configuration
    let clock: @Sendable () -> Timestamp
    fileprivate let made = Mutex(Made())

    fileprivate struct Made {
        var secret: ServerSecret?
        var store: (any UsageStore)?
        var verifier: TokenVerifier?
        var generator: (any QuestionGenerator)?
        var directory: (any UserDirectory)??
    }

    init(configuration: Configuration, clock: @escaping @Sendable () -> Timestamp) {
        self.configuration = configuration
        self.clock = clock
    }

    /// The server's secret (``FunctionAssembly/serverSecret(_:clock:)``), read once for the store and
    /// the recordings.
    func secret() async throws -> ServerSecret {
        if let secret = made.withLock({ $0.secret }) { return secret }
        let secret = try await FunctionAssembly.serverSecret(configuration, clock: clock)
        made.withLock { $0.secret = secret }
        return secret
    }

    func store() async throws -> any UsageStore {
        if let store = made.withLock({ $0.store }) { return store }
        let store = try FunctionAssembly.store(configuration, secret: try await secret(), clock: clock)
        made.withLock { $0.store = store }
        return store
    }

    func verifier(logger: Logger) throws -> TokenVerifier {
        if let verifier = made.withLock({ $0.verifier }) { return verifier }
        // The verifier's own clock checks nothing a request asks (the authorizer gives it the
        // request's time); it is the real time, for callers of `verify(_:)`.
        let verifier = TokenVerifier(
            configuration: try configuration.cognito(),
            keys: try FunctionAssembly.keySource(configuration, clock: clock),
            now: clock,
            logger: logger
        )
        made.withLock { $0.verifier = verifier }
        return verifier
    }

    func generator() async throws -> any QuestionGenerator {
        if let generator = made.withLock({ $0.generator }) { return generator }
        let generator = try await FunctionAssembly.generator(configuration, clock: clock)
        made.withLock { $0.generator = generator }
        return generator
    }

    func directory() throws -> (any UserDirectory)? {
        if let directory = made.withLock({ $0.directory }) { return directory }
        let directory: (any UserDirectory)? = try CognitoUserDirectory.fromConfiguration(configuration, clock: clock)
        made.withLock { $0.directory = .some(directory) }
        return directory
    }
}
