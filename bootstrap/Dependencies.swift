import InkraAuth
import InkraHandlers
import InkraLLM
import InkraUsage
import Logging
import SingleTable

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Builds the chosen function once, at start-up, from the environment (docs/configuration.md).
enum Dependencies {
    /// The function `_HANDLER` names, wired to its store, keys, limits and generator.
    /// - Throws: ``ConfigurationError`` naming the setting that is missing or malformed.
    static func function(
        named handler: String?,
        configuration: Configuration,
        environment: [String: String],
        clock: @escaping @Sendable () -> Date,
        logger: Logger
    ) async throws -> any EventHandler {
        guard let handler, !handler.isEmpty else {
            throw ConfigurationError("_HANDLER", "is required: authorizer, checkUsage or generateQuestions")
        }
        let name = handler.split(separator: ".").last.map(String.init) ?? handler
        let limits = try tierLimits(configuration)
        let now = InvocationClock.closure(system: clock)
        switch name.lowercased() {
        case "authorizer":
            let verifier = TokenVerifier(
                configuration: try configuration.cognito(),
                keys: try keySource(configuration, clock: clock),
                now: now,
                logger: logger
            )
            return Authorizer(verifier: verifier, limits: limits, logger: logger)
        case "checkusage":
            return CheckUsage(
                store: try await store(configuration, environment, clock: clock), limits: limits, now: now,
                logger: logger)
        case "generatequestions":
            return GenerateQuestions(
                store: try await store(configuration, environment, clock: clock),
                generator: try generator(environment),
                limits: limits,
                upgradeURL: configuration.upgradeURL,
                now: now,
                logger: logger
            )
        default:
            throw ConfigurationError(
                "_HANDLER", "must be authorizer, checkUsage or generateQuestions, got \"\(handler)\"")
        }
    }

    private static func generator(_ environment: [String: String]) throws -> any QuestionGenerator {
        let settings: ChatCompletionsGenerator.Settings?
        do {
            settings = try ChatCompletionsGenerator.Settings.fromEnvironment(environment)
        } catch {
            throw ConfigurationError("INKRA_LLM_BASE_URL", "\(error)")
        }
        guard let settings else { return TemplateQuestionGenerator() }
        return ChatCompletionsGenerator(settings: settings)
    }

    private static func tierLimits(_ configuration: Configuration) throws(ConfigurationError) -> TierLimits {
        guard let file = configuration.limitsFile else { return TierLimits() }
        do {
            return try TierLimits(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw ConfigurationError("INKRA_LIMITS_FILE", "\(error)")
        }
    }

    private static func keySource(_ configuration: Configuration, clock: @escaping @Sendable () -> Date)
        throws(ConfigurationError) -> any KeySource
    {
        if let file = configuration.jwksFile {
            do {
                return try JWKSKeySource(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw ConfigurationError("INKRA_JWKS_FILE", "\(error)")
            }
        }
        let url = try configuration.cognito().jwksURL
        return RemoteKeySource(url: url, fetch: HTTPSFetch.get, now: clock)
    }

    private static func store(
        _ configuration: Configuration, _ environment: [String: String], clock: @escaping @Sendable () -> Date
    ) async throws -> any UsageStore {
        switch configuration.store {
        case .memory:
            let table = InMemoryTable(schema: .singleTable(named: configuration.tableName), now: clock)
            return TableUsageStore(table: table, tableName: configuration.tableName)
        case .dynamodb:
            return TableUsageStore(
                table: try DynamoDBStore.table(configuration, environment, clock: clock),
                tableName: configuration.tableName
            )
        }
    }
}
