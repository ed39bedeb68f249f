import AWSServices
import HTTPText
import InkraAuth
import InkraHandlers
import InkraLLM
import InkraTime
import LambdaRuntimeAPI
import Logging

/// The settings of docs/configuration.md, read from the environment as Lambda provides it.
///
/// Reading checks the form of every setting present; what a function needs and lacks is reported
/// when that function is built, by ``ConfigurationError`` naming the setting.
struct Configuration: Sendable, Hashable {
    /// Which usage store to use.
    enum StoreKind: String, Sendable, Hashable {
        /// The embedded in-memory table.
        case memory
        /// DynamoDB (or a compatible endpoint).
        case dynamodb
    }

    /// Log line format.
    enum LogFormat: String, Sendable, Hashable {
        case text = "Text"
        case json = "JSON"
    }

    /// `INKRA_TABLE_NAME` (default `inkra-usage`).
    var tableName: String
    /// `INKRA_STORE`: required inside Lambda (a sandbox-local table would meter each sandbox on
    /// its own and hand out the quota once per sandbox); `memory` elsewhere.
    var store: StoreKind = .memory
    /// Whether the process runs inside Lambda (`AWS_LAMBDA_FUNCTION_NAME` is set): settings are
    /// then never defaulted to local ones, and an unknown `INKRA_*` setting stops start-up.
    var insideLambda = false
    /// `INKRA_GATEWAY_TIMEOUT`: API Gateway's integration timeout in seconds (default 29, its
    /// default limit); a request's work ends before it, and before Lambda's deadline.
    var gatewayTimeout: Double
    /// What a request keeps back from its deadline to give a unit back and answer.
    static let deadlineMargin: Double = 1
    /// Where and as whom the AWS clients call: `AWS_REGION` (or `AWS_DEFAULT_REGION`), the
    /// credentials, `AWS_ENDPOINT_URL` and each service's own endpoint variable.
    var aws = AWSSettings()
    /// `COGNITO_USER_POOL_ID`.
    var userPoolID: String?
    /// `COGNITO_REGION`, else the pool id's region prefix, else `AWS_REGION`.
    var cognitoRegion: String?
    /// `INKRA_COGNITO_ISSUER`: the pool's `IssuerConfiguration` (`ORIGINAL` or `UPDATED`), which
    /// sets the issuer `iss` must equal and where the keys are fetched; the authorizer requires it
    /// inside Lambda (never assumed there), `ORIGINAL` elsewhere.
    var issuerForm: IssuerForm?
    /// `INKRA_LIMITS_MAX_AGE`: seconds the limits read from `INKRA_LIMITS_PARAMETER` are kept
    /// before the next invocation reads the parameter again (default 60).
    var limitsMaxAge: Double
    /// `COGNITO_CLIENT_IDS`, comma-separated.
    var clientIDs: [String] = []
    /// `INKRA_TOKEN_USE`: `id` (default, as template.yaml deploys), `access` or `any`.
    var tokenUse: TokenUse
    /// `INKRA_JWKS_FILE`: a local JWKS instead of the pool's.
    var jwksFile: String?
    /// `INKRA_CLOCK_SKEW`: seconds of tolerance on `exp`, `nbf`, `iat` (default 5,
    /// `CognitoConfiguration.defaultClockTolerance`).
    var clockSkew: Double
    /// `INKRA_LIMITS_FILE`.
    var limitsFile: String?
    /// `INKRA_LIMITS`: the tiers' limits as JSON.
    var limitsJSON: String?
    /// `INKRA_LIMITS_PARAMETER`: an SSM parameter holding that JSON, read at start.
    var limitsParameter: String?
    /// `INKRA_CLOCK`: `request-time` runs each event at the instant API Gateway received it (for
    /// replaying recorded events), `system` (the default) at the real time.
    var requestClock: Bool
    /// `INKRA_DELETE_COGNITO_USER`: whether `deleteAccount` also deletes the caller's user in
    /// `COGNITO_USER_POOL_ID` (`true` or `false`); `deleteAccount` requires it inside Lambda.
    var deleteCognitoUser: Bool?
    /// `INKRA_UPGRADE_URL`.
    var upgradeURL: String
    /// `INKRA_RECORD_EVENTS`: `1` (or `true`) writes a redacted recording of every invocation to
    /// the log for `inkra-emulator import`; off by default.
    var recordEvents: Bool
    /// `AWS_LAMBDA_LOG_FORMAT`.
    var logFormat: LogFormat = .text
    /// The least severe level written: `LOG_LEVEL`'s; in the JSON format the more severe of it and
    /// `AWS_LAMBDA_LOG_LEVEL` (the function's application log level, below which Lambda drops
    /// lines); else `AWS_LAMBDA_LOG_LEVEL`'s, else `info`.
    var logLevel: Logger.Level = .info
    /// `AWS_XRAY_DAEMON_ADDRESS`: where Lambda's X-Ray daemon listens (UDP) when the function
    /// traces; unset, no segment is sent.
    var xrayDaemonAddress: String?
    /// `INKRA_LLM_BASE_URL`: the model endpoint; unset, `generateQuestions` uses the built-in generator.
    var modelBaseURL: HTTPURL?
    /// `INKRA_LLM_MODEL`: the model's name, required with a base URL.
    var modelName: String?
    /// `INKRA_LLM_API_KEY`: the model endpoint's key.
    var modelAPIKey: String?
    /// `INKRA_LLM_API_KEY_SECRET_ARN`: a Secrets Manager secret holding that key, read at start.
    var modelAPIKeySecretARN: String?
    /// `INKRA_LLM_TIMEOUT`: seconds one model call may take (default 20).
    var modelTimeout: Double
    /// `INKRA_SERVER_SECRET`: the server's secret itself.
    var serverSecret: String?
    /// `INKRA_SERVER_SECRET_ARN`: a Secrets Manager secret holding it, read at start.
    var serverSecretARN: String?

    /// The values `LOG_LEVEL` accepts (any case): swift-log's levels, and `warn` for `warning`.
    static let logLevels: [(name: String, level: Logger.Level)] =
        Logger.Level.allCases.map { ($0.rawValue, $0) } + [("warn", .warning)]

    /// The values `AWS_LAMBDA_LOG_LEVEL` takes (any case): Lambda's application log levels, which
    /// Lambda sets it to from the function's `LoggingConfig` ("Log-level filtering",
    /// https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-log-level.html),
    /// as swift-log's levels (`LambdaJSONLogLine.name(of:)` writes them back).
    static let lambdaLogLevels: [(name: String, level: Logger.Level)] = [
        ("TRACE", .trace), ("DEBUG", .debug), ("INFO", .info), ("WARN", .warning), ("ERROR", .error),
        ("FATAL", .critical),
    ]

    /// The defaults: what an empty environment reads as (``RuntimeSetting/defaultValue``).
    init() {
        do {
            self = try Self(environment: [:])
        } catch {
            preconditionFailure("RuntimeSetting's defaults must read: \(error)")
        }
    }

    /// Reads the environment. Every `INKRA_*` setting is read through ``RuntimeSetting``, the one
    /// list: its name, its form (checked here, and named with what it accepts when it does not
    /// fit) and its default.
    /// - Throws: ``ConfigurationError`` naming the first malformed setting.
    init(environment: [String: String]) throws(ConfigurationError) {
        func value(_ name: String) -> String? {
            guard let raw = environment[name]?.trimmingSpacesAndTabs(), !raw.isEmpty else { return nil }
            return String(raw)
        }
        insideLambda = value("AWS_LAMBDA_FUNCTION_NAME") != nil
        if insideLambda, let unknown = environment.keys.sorted().first(where: { Self.isUnknownSetting($0) }) {
            throw ConfigurationError(
                .unknownSetting, unknown,
                "is not a setting of this runtime (known: \(Self.knownSettings.joined(separator: ", ")))")
        }
        let settings = try Self.settings(environment)
        // The defaults come through `settings` too, so these fallbacks are never taken.
        func text(_ setting: RuntimeSetting) -> String? { settings[setting]?.text }
        func seconds(_ setting: RuntimeSetting) -> Double { settings[setting]?.seconds ?? 0 }

        tableName = text(.tableName) ?? ""
        if let kind = text(.store).flatMap(StoreKind.init(rawValue:)) {
            store = kind
        } else if insideLambda {
            throw ConfigurationError(
                .missing, RuntimeSetting.store.rawValue,
                "must be set inside Lambda (dynamodb, or memory to meter each sandbox on its own): "
                    + "without it every sandbox would count usage separately and hand out the quota many times"
            )
        }
        gatewayTimeout = seconds(.gatewayTimeout)
        do {
            aws = try AWSSettings(environment: environment)
        } catch {
            throw ConfigurationError(.invalid, error.variable ?? "AWS_ENDPOINT_URL", error.reason)
        }
        userPoolID = value("COGNITO_USER_POOL_ID")
        if let pool = userPoolID {
            guard let underscore = pool.firstIndex(of: "_"), underscore != pool.startIndex,
                pool.index(after: underscore) != pool.endIndex
            else {
                throw ConfigurationError(
                    .invalid, "COGNITO_USER_POOL_ID", "must look like us-east-1_AbCdEf123, got \"\(pool)\"")
            }
        }
        cognitoRegion = value("COGNITO_REGION") ?? userPoolID.map { String($0.prefix { $0 != "_" }) } ?? aws.region
        clientIDs = (value("COGNITO_CLIENT_IDS") ?? "").split(separator: ",")
            .map { String($0.trimmingSpacesAndTabs()) }.filter { !$0.isEmpty }
        tokenUse = text(.tokenUse).flatMap(TokenUse.init(rawValue:)) ?? .id
        issuerForm = text(.cognitoIssuer).flatMap(IssuerForm.init(rawValue:))
        jwksFile = text(.jwksFile)
        clockSkew = seconds(.clockSkew)
        limitsFile = text(.limitsFile)
        limitsJSON = text(.limits)
        limitsParameter = text(.limitsParameter)
        if let name = limitsParameter {
            do {
                _ = try SSMParameterName(name)
            } catch {
                throw ConfigurationError(.invalid, RuntimeSetting.limitsParameter.rawValue, "\(error)")
            }
        }
        limitsMaxAge = seconds(.limitsMaxAge)
        requestClock = text(.clock) == "request-time"
        deleteCognitoUser = text(.deleteCognitoUser).map { $0 == "true" }
        upgradeURL = text(.upgradeURL) ?? ""
        recordEvents = ["1", "true"].contains(text(.recordEvents))
        modelBaseURL = settings[.modelBaseURL]?.url
        modelName = text(.model)
        modelAPIKey = text(.modelAPIKey)
        modelAPIKeySecretARN = text(.modelAPIKeySecretARN)
        modelTimeout = seconds(.modelTimeout)
        serverSecret = text(.serverSecret)
        serverSecretARN = text(.serverSecretARN)
        if let format = value("AWS_LAMBDA_LOG_FORMAT") {
            guard let parsed = LogFormat.allCases.first(where: { $0.rawValue.lowercased() == format.lowercased() })
            else {
                throw ConfigurationError(.invalid, "AWS_LAMBDA_LOG_FORMAT", "must be Text or JSON, got \"\(format)\"")
            }
            logFormat = parsed
        }
        xrayDaemonAddress = value("AWS_XRAY_DAEMON_ADDRESS")
        if let address = xrayDaemonAddress, XRayDaemonClient.udpAddress(in: address) == nil {
            throw ConfigurationError(
                .invalid, "AWS_XRAY_DAEMON_ADDRESS",
                "must be host:port (or udp:host:port tcp:host:port), got \"\(address)\"")
        }
        logLevel = try Self.logLevel(
            own: value("LOG_LEVEL"), lambdas: value("AWS_LAMBDA_LOG_LEVEL"), json: logFormat == .json)
    }

    /// The least severe level written, from `LOG_LEVEL` (`own`) and `AWS_LAMBDA_LOG_LEVEL`
    /// (`lambdas`). Lambda's advanced logging controls filter JSON lines only: in that format a line
    /// below the function's application log level is dropped, so the runtime does not write it
    /// whatever `LOG_LEVEL` says, and `LOG_LEVEL` can only raise the level. In the Text format
    /// Lambda filters nothing, and `AWS_LAMBDA_LOG_LEVEL` stands in for a `LOG_LEVEL` not set.
    /// - Throws: ``ConfigurationError`` naming a value that is not a level.
    private static func logLevel(own: String?, lambdas: String?, json: Bool) throws(ConfigurationError)
        -> Logger.Level
    {
        var ownLevel: Logger.Level?
        if let own {
            guard let level = logLevels.first(where: { $0.name == own.lowercased() })?.level else {
                let names = Logger.Level.allCases.map { $0 == .warning ? "warning (or warn)" : $0.rawValue }
                throw ConfigurationError(
                    .invalid, "LOG_LEVEL", "must be one of \(names.joined(separator: ", ")) (any case), got \"\(own)\"")
            }
            ownLevel = level
        }
        var lambdaLevel: Logger.Level?
        if let lambdas {
            guard let level = lambdaLogLevels.first(where: { $0.name == lambdas.uppercased() })?.level else {
                let names = lambdaLogLevels.map(\.name)
                throw ConfigurationError(
                    .invalid, "AWS_LAMBDA_LOG_LEVEL",
                    "must be one of \(names.dropLast().joined(separator: ", ")) or \(names.last ?? "") (any case), "
                        + "got \"\(lambdas)\"")
            }
            lambdaLevel = level
        }
        if json, let lambdaLevel { return max(ownLevel ?? lambdaLevel, lambdaLevel) }
        return ownLevel ?? lambdaLevel ?? .info
    }

    /// Every `INKRA_*` setting's value, in ``RuntimeSetting``'s order: the environment's when it
    /// is set (empty, or for most settings only spaces and tabs, is unset), else the default.
    /// - Throws: ``ConfigurationError`` naming a value that does not fit its setting's form and
    ///   saying what the setting accepts.
    private static func settings(_ environment: [String: String]) throws(ConfigurationError)
        -> [RuntimeSetting: RuntimeSetting.Value]
    {
        var values: [RuntimeSetting: RuntimeSetting.Value] = [:]
        for setting in RuntimeSetting.allCases {
            let raw = environment[setting.rawValue]
            let given = setting.keepsSpaces ? raw : raw.map { String($0.trimmingSpacesAndTabs()) }
            guard let text = given, !text.isEmpty else {
                values[setting] = setting.defaultValue.flatMap(setting.value(of:))
                continue
            }
            guard let value = setting.value(of: text) else {
                throw ConfigurationError(.invalid, setting.rawValue, "must be \(setting.accepts), got \"\(text)\"")
            }
            values[setting] = value
        }
        return values
    }

    /// The model endpoint `generateQuestions` asks, or `nil` when `INKRA_LLM_BASE_URL` is unset (the
    /// built-in generator).
    /// - Parameter secretKey: the key read from `INKRA_LLM_API_KEY_SECRET_ARN`'s secret, which
    ///   takes the place of `INKRA_LLM_API_KEY`.
    /// - Throws: ``ConfigurationError`` naming `INKRA_LLM_MODEL` when it is missing, or the key's
    ///   setting when the key would go over plain `http` to another machine.
    func model(secretKey: String? = nil) throws(ConfigurationError) -> ChatCompletionsGenerator.Settings? {
        guard let modelBaseURL else { return nil }
        guard let modelName else {
            throw ConfigurationError(.missing, "INKRA_LLM_MODEL", "is required with INKRA_LLM_BASE_URL")
        }
        let settings = ChatCompletionsGenerator.Settings(
            baseURL: modelBaseURL, apiKey: secretKey ?? modelAPIKey, model: modelName, timeout: modelTimeout)
        guard !settings.sendsKeyInTheClear else {
            throw ConfigurationError(
                .invalid, secretKey == nil ? "INKRA_LLM_API_KEY" : "INKRA_LLM_API_KEY_SECRET_ARN",
                "is never sent over plain http except to this machine (127.0.0.1, ::1, localhost); "
                    + "INKRA_LLM_BASE_URL must be https, got \"\(modelBaseURL.absoluteString)\"")
        }
        return settings
    }

    /// The Cognito settings the authorizer needs.
    /// - Throws: ``ConfigurationError`` when the pool or its region is missing.
    func cognito() throws(ConfigurationError) -> CognitoConfiguration {
        guard let userPoolID else {
            throw ConfigurationError(.missing, "COGNITO_USER_POOL_ID", "is required by the authorizer")
        }
        guard let cognitoRegion else {
            throw ConfigurationError(.missing, "COGNITO_REGION", "is required by the authorizer (or AWS_REGION)")
        }
        guard let issuerForm = issuerForm ?? (insideLambda ? nil : .original) else {
            throw ConfigurationError(
                .missing, "INKRA_COGNITO_ISSUER",
                "is required by the authorizer inside Lambda: ORIGINAL or UPDATED, as the pool's "
                    + "IssuerConfiguration (template.yaml's CognitoIssuer sets both)")
        }
        return CognitoConfiguration(
            region: cognitoRegion,
            userPoolId: userPoolID,
            issuerForm: issuerForm,
            clientIds: clientIDs,
            tokenUse: tokenUse,
            clockTolerance: clockSkew
        )
    }

    /// The pool whose user `deleteAccount` deletes, or `nil` when it erases usage only.
    /// - Throws: ``ConfigurationError`` when inside Lambda `INKRA_DELETE_COGNITO_USER` is not set
    ///   (it is never assumed either way there), or when it is `true` without a pool.
    func accountPool() throws(ConfigurationError) -> String? {
        guard let deleteCognitoUser else {
            guard !insideLambda else {
                throw ConfigurationError(
                    .missing, "INKRA_DELETE_COGNITO_USER",
                    "must be set for deleteAccount inside Lambda: true deletes the caller's Cognito user "
                        + "with their usage (as template.yaml deploys), false erases usage only")
            }
            return nil
        }
        guard deleteCognitoUser else { return nil }
        guard let userPoolID else {
            throw ConfigurationError(
                .missing, "COGNITO_USER_POOL_ID", "is required by deleteAccount when INKRA_DELETE_COGNITO_USER is true")
        }
        return userPoolID
    }

    /// Every `INKRA_*` setting the runtime reads: ``RuntimeSetting``'s, the one list.
    static let knownSettings = RuntimeSetting.allCases.map(\.rawValue).sorted()

    private static func isUnknownSetting(_ name: String) -> Bool {
        name.hasPrefix("INKRA_") && RuntimeSetting(rawValue: name) == nil
    }

    /// Seconds past the work's deadline that clean-up (a give-back, an answer's record, a
    /// refusal's mark) may take, within Lambda's deadline.
    static let cleanupBudget: Double = 2
    /// What clean-up keeps back from Lambda's deadline to send the answer.
    static let answerMargin: Double = 0.25
    /// How old API Gateway's receive time may be and still count: an older one is a recorded or
    /// hand-made event (`sam local generate-event` writes 2015), not a live request.
    static let liveRequestAge: Double = 900

    /// The instant a request's work must end: the earlier of Lambda's deadline and API Gateway's
    /// integration timeout, less ``deadlineMargin``. The timeout counts from `gatewayStart`, when
    /// API Gateway received the request (the event's `requestTimeEpoch` / `timeEpoch`), so time
    /// spent before the invocation — a cold start's init — is counted as API Gateway counts it;
    /// from `start` without one, or when it lies ahead of `start` or more than ``liveRequestAge``
    /// behind it.
    func requestDeadline(lambdaDeadline: Timestamp, start: Timestamp, gatewayStart: Timestamp? = nil) -> Timestamp {
        var received = start
        if let gatewayStart, gatewayStart <= start, start.timeIntervalSince(gatewayStart) <= Self.liveRequestAge {
            received = gatewayStart
        }
        return min(lambdaDeadline, received.addingTimeInterval(gatewayTimeout)).addingTimeInterval(-Self.deadlineMargin)
    }

    /// The instant a request's clean-up must end: ``cleanupBudget`` past the work's deadline,
    /// and ``answerMargin`` before Lambda's.
    func cleanupDeadline(work: Timestamp, lambdaDeadline: Timestamp) -> Timestamp {
        max(
            work,
            min(work.addingTimeInterval(Self.cleanupBudget), lambdaDeadline.addingTimeInterval(-Self.answerMargin)))
    }
}

extension Configuration.LogFormat: CaseIterable {}
