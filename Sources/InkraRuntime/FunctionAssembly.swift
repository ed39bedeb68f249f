import AWSServices
import DynamoDBTable
import InkraAuth
import InkraHandlers
import InkraLLM
import InkraTime
import InkraUsage
import Logging
import SingleTable

/// Builds the chosen function once, at start-up, from the settings ``Configuration`` read
/// (docs/configuration.md), never from the environment itself.
enum FunctionAssembly {
    /// The function `_HANDLER` names in `functions`, wired to its store, keys, limits and generator.
    /// - Parameter shared: the dependencies made once (the caller's, to read the same secret for
    ///   its recordings); new ones when not given.
    /// - Throws: ``ConfigurationError`` naming the setting that is missing or malformed.
    static func function(
        named handler: String?,
        in functions: FunctionList = .standard,
        configuration: Configuration,
        clock: @escaping @Sendable () -> Timestamp,
        logger: Logger,
        shared: SharedDependencies? = nil
    ) async throws -> any EventHandler {
        guard let handler, !handler.isEmpty else {
            throw ConfigurationError(.missing, "_HANDLER", "is required: \(functions.nameList)")
        }
        let unlisted = ConfigurationError(.invalid, "_HANDLER", "must be \(functions.nameList), got \"\(handler)\"")
        guard let name = functions.name(matching: handler) else { throw unlisted }
        let limits = try await tierLimits(configuration, clock: clock)
        let dependencies = FunctionList.Dependencies(
            limits: limits, logger: logger,
            shared: shared ?? SharedDependencies(configuration: configuration, clock: clock))
        let refresh = try limitsSource(configuration, clock: clock).map {
            LimitsRefresh(source: $0, limits: limits, maxAge: configuration.limitsMaxAge, logger: logger)
        }
        guard let function = try await functions.function(name, dependencies: dependencies, refresh: refresh) else {
            throw unlisted
        }
        return function
    }

    /// Where the limits are read again while the sandbox is warm: `INKRA_LIMITS_PARAMETER`'s
    /// parameter, else `INKRA_LIMITS_FILE`'s file; `nil` for `INKRA_LIMITS` and the built-in ones,
    /// which cannot change.
    /// - Throws: ``ConfigurationError`` when the SSM client cannot be configured.
    private static func limitsSource(
        _ configuration: Configuration, clock: @escaping @Sendable () -> Timestamp
    ) throws(ConfigurationError) -> LimitsSource? {
        if let parameter = configuration.limitsParameter {
            do {
                return .parameter(parameter, ssm: try AWSJSONService.ssm(configuration.aws, now: clock))
            } catch {
                throw ConfigurationError(.invalid, "INKRA_LIMITS_PARAMETER", "\(error)")
            }
        }
        guard configuration.limitsJSON == nil, let file = configuration.limitsFile else { return nil }
        return .file(file)
    }

    /// The model endpoint of `INKRA_LLM_BASE_URL`, else the built-in generator. The key read from
    /// `INKRA_LLM_API_KEY_SECRET_ARN`'s secret is handed to the model's settings as a value.
    static func generator(
        _ configuration: Configuration, clock: @escaping @Sendable () -> Timestamp
    ) async throws -> any QuestionGenerator {
        var secretKey: String?
        // The key lives in Secrets Manager; the function's configuration holds only its ARN.
        if let arn = configuration.modelAPIKeySecretARN {
            do {
                secretKey = try await AWSJSONService.secretsManager(configuration.aws, now: clock).secretString(id: arn)
            } catch {
                throw ConfigurationError(
                    .unreadable, "INKRA_LLM_API_KEY_SECRET_ARN", "cannot read the secret: \(error)")
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
        _ configuration: Configuration, clock: @escaping @Sendable () -> Timestamp
    ) async throws(ConfigurationError) -> TierLimits {
        if let name = configuration.limitsParameter {
            let text: String
            do {
                text = try await AWSJSONService.ssm(configuration.aws, now: clock).parameter(named: name)
            } catch {
                throw ConfigurationError(
                    .unreadable, "INKRA_LIMITS_PARAMETER", "cannot read the parameter \"\(name)\": \(error)")
            }
            return try limits(json: text, setting: "INKRA_LIMITS_PARAMETER", source: "SSM parameter \(name)")
        }
        if let json = configuration.limitsJSON {
            return try limits(json: json, setting: "INKRA_LIMITS", source: "INKRA_LIMITS")
        }
        guard let file = configuration.limitsFile else { return TierLimits() }
        do {
            return try TierLimits(contentsOfFile: file)
        } catch {
            throw ConfigurationError(.invalid, "INKRA_LIMITS_FILE", "\(error)")
        }
    }

    private static func limits(json: String, setting: String, source: String) throws(ConfigurationError)
        -> TierLimits
    {
        do {
            return try TierLimits(json: Array(json.utf8), source: source)
        } catch {
            throw ConfigurationError(.invalid, setting, "\(error)")
        }
    }

    static func keySource(_ configuration: Configuration, clock: @escaping @Sendable () -> Timestamp)
        throws(ConfigurationError) -> any KeySource
    {
        if let file = configuration.jwksFile {
            do {
                return try JWKSKeySource(contentsOfFile: file)
            } catch {
                throw ConfigurationError(.invalid, "INKRA_JWKS_FILE", "\(error)")
            }
        }
        let url = try configuration.cognito().jwksURL
        return RemoteKeySource(url: url, fetch: HTTPSFetch.get, now: clock)
    }

    static func store(
        _ configuration: Configuration, secret: ServerSecret, clock: @escaping @Sendable () -> Timestamp
    ) throws -> any UsageStore {
        switch configuration.store {
        case .memory:
            let table = InMemoryTable(schema: .singleTable(named: configuration.tableName), now: clock)
            return TableUsageStore(table: table, tableName: configuration.tableName, secret: secret)
        case .dynamodb:
            return TableUsageStore(
                table: try DynamoDBStore.table(configuration, clock: clock),
                tableName: configuration.tableName,
                secret: secret
            )
        }
    }

    /// The server's secret: `INKRA_SERVER_SECRET_ARN`'s secret, else `INKRA_SERVER_SECRET`; outside
    /// Lambda, the public development secret without either. Inside Lambda one is required by a
    /// function with a usage store and by any function that records (fail closed: a public secret
    /// would let anyone who reads the table open its sealed answers, and anyone who reads the
    /// logs undo a recording's pseudonyms).
    /// - Throws: ``ConfigurationError`` naming the setting that is missing, unreadable or too short.
    static func serverSecret(
        _ configuration: Configuration, clock: @escaping @Sendable () -> Timestamp
    ) async throws(ConfigurationError) -> ServerSecret {
        let short =
            "must hold at least \(ServerSecret.minimumBytes) bytes (random, as template.yaml's ServerSecret generates)"
        if let arn = configuration.serverSecretARN {
            let text: String
            do {
                text = try await AWSJSONService.secretsManager(configuration.aws, now: clock).secretString(id: arn)
            } catch {
                throw ConfigurationError(.unreadable, "INKRA_SERVER_SECRET_ARN", "cannot read the secret: \(error)")
            }
            guard let secret = ServerSecret(text) else {
                throw ConfigurationError(.invalid, "INKRA_SERVER_SECRET_ARN", short)
            }
            return secret
        }
        if let text = configuration.serverSecret {
            guard let secret = ServerSecret(text) else {
                throw ConfigurationError(.invalid, "INKRA_SERVER_SECRET", short)
            }
            return secret
        }
        guard !configuration.insideLambda else {
            throw ConfigurationError(
                .missing, "INKRA_SERVER_SECRET_ARN",
                "is required inside Lambda by every function with a usage store, and by every function with "
                    + "INKRA_RECORD_EVENTS on: a Secrets Manager secret that keys sealed answers, deleted accounts' "
                    + "carried usage and recordings' pseudonyms (template.yaml's ServerSecret)")
        }
        return .development
    }
}
