import AWSServices
import DynamoDBTable
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

/// Builds the chosen function once, at start-up, from the settings ``Configuration`` read
/// (docs/configuration.md), never from the environment itself.
enum Dependencies {
    /// The functions `_HANDLER` may name, as events folders and recordings write them: the one
    /// list the function lookup and ``Recorder`` read.
    enum Function: String, Sendable, CaseIterable {
        case authorizer
        case checkUsage
        case generateQuestions
        case deleteAccount
        case repairCharges

        /// "authorizer, checkUsage, generateQuestions, deleteAccount or repairCharges", for messages.
        static let names =
            allCases.dropLast().map(\.rawValue).joined(separator: ", ") + " or " + (allCases.last?.rawValue ?? "")

        /// The function `handler` names: its last `.`-separated part (`bootstrap.checkUsage`),
        /// ignoring case; `nil` when it names none.
        init?(handler: String) {
            let name = handler.split(separator: ".").last.map(String.init) ?? handler
            guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
                return nil
            }
            self = match
        }
    }

    /// The function `_HANDLER` names, wired to its store, keys, limits and generator.
    /// - Throws: ``ConfigurationError`` naming the setting that is missing or malformed.
    static func function(
        named handler: String?,
        configuration: Configuration,
        clock: @escaping @Sendable () -> Date,
        logger: Logger
    ) async throws -> any EventHandler {
        guard let handler, !handler.isEmpty else {
            throw ConfigurationError("_HANDLER", "is required: \(Function.names)")
        }
        guard let function = Function(handler: handler) else {
            throw ConfigurationError("_HANDLER", "must be \(Function.names), got \"\(handler)\"")
        }
        let limits = try await tierLimits(configuration, clock: clock)
        let now = InvocationClock.closure(system: clock)
        // The function with some limits: built once here, and again when refreshed limits differ.
        let make: @Sendable (TierLimits) -> any EventHandler
        switch function {
        case .authorizer:
            let verifier = TokenVerifier(
                configuration: try configuration.cognito(),
                keys: try keySource(configuration, clock: clock),
                now: now,
                logger: logger
            )
            make = { Authorizer(verifier: verifier, limits: $0, logger: logger) }
        case .checkUsage:
            let store = try await store(configuration, clock: clock)
            make = { CheckUsage(store: store, limits: $0, now: now, logger: logger) }
        case .deleteAccount:
            let deleteAccount = DeleteAccount(
                store: try await store(configuration, clock: clock),
                users: try CognitoUserDirectory.fromConfiguration(configuration, clock: clock),
                logger: logger)
            make = { _ in deleteAccount }
        case .repairCharges:
            let repair = RepairCharges(
                store: try await store(configuration, clock: clock), now: now, logger: logger)
            make = { _ in repair }
        case .generateQuestions:
            let store = try await store(configuration, clock: clock)
            let generator = try await generator(configuration, clock: clock)
            let upgradeURL = configuration.upgradeURL
            make = {
                GenerateQuestions(
                    store: store, generator: generator, limits: $0, upgradeURL: upgradeURL, now: now, logger: logger)
            }
        }
        guard let parameter = configuration.limitsParameter else { return make(limits) }
        return try LimitsRefresh.function(
            parameter: parameter, limits: limits, configuration: configuration,
            clock: clock, now: now, logger: logger, make: make)
    }

    /// The model endpoint of `INKRA_LLM_BASE_URL`, else the built-in generator. The key read from
    /// `INKRA_LLM_API_KEY_SECRET_ARN`'s secret is handed to the model's settings as a value.
    private static func generator(
        _ configuration: Configuration, clock: @escaping @Sendable () -> Date
    ) async throws -> any QuestionGenerator {
        var secretKey: String?
        // The key lives in Secrets Manager; the function's configuration holds only its ARN.
        if let arn = configuration.modelAPIKeySecretARN {
            do {
                secretKey = try await AWSJSONService.secretsManager(configuration.aws, now: clock).secretString(id: arn)
            } catch {
                throw ConfigurationError("INKRA_LLM_API_KEY_SECRET_ARN", "cannot read the secret: \(error)")
            }
        }
        guard let settings = try configuration.model(secretKey: secretKey) else { return TemplateQuestionGenerator() }
        return ModelQuestionGenerator(model: ChatCompletionsGenerator(settings: settings))
    }

    /// The tiers' limits: from the SSM parameter `INKRA_LIMITS_PARAMETER`, else the JSON of
    /// `INKRA_LIMITS`, else the file `INKRA_LIMITS_FILE`, else the built-in ones; a malformed one
    /// stops start-up naming the setting and the field, so an owner changes the free tier
    /// without building a new zip.
    private static func tierLimits(
        _ configuration: Configuration, clock: @escaping @Sendable () -> Date
    ) async throws(ConfigurationError) -> TierLimits {
        if let name = configuration.limitsParameter {
            let text: String
            do {
                text = try await AWSJSONService.ssm(configuration.aws, now: clock).parameter(named: name)
            } catch {
                throw ConfigurationError("INKRA_LIMITS_PARAMETER", "cannot read the parameter \"\(name)\": \(error)")
            }
            return try limits(json: text, setting: "INKRA_LIMITS_PARAMETER", source: "SSM parameter \(name)")
        }
        if let json = configuration.limitsJSON {
            return try limits(json: json, setting: "INKRA_LIMITS", source: "INKRA_LIMITS")
        }
        guard let file = configuration.limitsFile else { return TierLimits() }
        do {
            return try TierLimits(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw ConfigurationError("INKRA_LIMITS_FILE", "\(error)")
        }
    }

    private static func limits(json: String, setting: String, source: String) throws(ConfigurationError)
        -> TierLimits
    {
        do {
            return try TierLimits(json: Data(json.utf8), source: source)
        } catch {
            throw ConfigurationError(setting, "\(error)")
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
        _ configuration: Configuration, clock: @escaping @Sendable () -> Date
    ) async throws -> any UsageStore {
        switch configuration.store {
        case .memory:
            let table = InMemoryTable(schema: .singleTable(named: configuration.tableName), now: clock)
            return TableUsageStore(table: table, tableName: configuration.tableName)
        case .dynamodb:
            return TableUsageStore(
                table: try DynamoDBStore.table(configuration, clock: clock),
                tableName: configuration.tableName
            )
        }
    }
}
