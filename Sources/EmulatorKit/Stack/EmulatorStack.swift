import AWSServices
import DynamoDBTable
import Foundation
import HTTPText
import InkraAuth
import InkraHandlers
import InkraRuntime
import InkraTime
import InkraUsage
import LocalUserPool
import Logging
import OutboundHTTP
import SingleTable

/// The functions wired as they are deployed — one usage table, one key source, one clock —
/// with API Gateway's chain in front.
package struct EmulatorStack: Sendable {
    /// What the stack was built with.
    package let options: EmulatorOptions
    /// The table the usage store writes to.
    package let table: any Table
    /// The in-memory table, when the stack is not on DynamoDB (persisted with `--state`).
    package let memoryTable: InMemoryTable?
    /// The usage store.
    package let store: TableUsageStore
    /// `authorizer`, for the stack's own pool.
    package let authorizer: Authorizer
    /// The functions, built by the list that ships (`FunctionList.standard`) from the stack's parts.
    private let functions: [FunctionName: any EventHandler]
    /// The state file, when one was named.
    package let state: StateFile?
    /// The state file's write-ahead log, when one was named.
    package private(set) var journal: StateJournal?
    /// The state file's lock, held while this stack (or a copy of it) lives.
    package private(set) var stateLock: StateFileLock?
    /// User pools trusted besides the one the options name (`serve`'s local user pool).
    package let trustedPools: TrustedPools
    /// The local user pool's accounts, which `deleteAccount` deletes once `serve` attaches its pool.
    package let localAccounts = LocalAccounts()
    /// What the functions log through: each invocation's context carries it, with the request id.
    let logger: Logger

    /// Builds the stack on the in-memory table, loading `--state` when named — or on DynamoDB when
    /// `--dynamodb-endpoint` is given. A state file is locked first (``StateFileLock``): another
    /// process that holds it makes this throw, naming the holder.
    /// - Throws: ``EmulatorError`` naming the file or flag at fault, or the state file's holder.
    package init(options: EmulatorOptions, logger: Logger = Logger(label: "inkra.emulator")) async throws(EmulatorError)
    {
        if let endpoint = options.dynamoDBEndpoint {
            guard options.stateFile == nil else {
                throw EmulatorError("--state keeps the in-memory table; it cannot be combined with --dynamodb-endpoint")
            }
            try await self.init(options: options, table: Self.dynamoDB(endpoint, now: options.clock), logger: logger)
            return
        }
        let lock = try options.stateFile.map { url throws(EmulatorError) in try StateFileLock.acquire(for: url) }
        let state = options.stateFile.map { StateFile(url: $0, tableName: options.tableName) }
        let items = try state?.load() ?? []
        let journal = try state?.openJournal()
        let table = InMemoryTable(
            schema: .singleTable(named: options.tableName), items: items, journal: journal, now: options.clock)
        try await self.init(options: options, table: table, memoryTable: table, state: state, logger: logger)
        self.journal = journal
        self.stateLock = lock
    }

    /// Builds the stack over any table (such as DynamoDB).
    package init(options: EmulatorOptions, table: any Table, logger: Logger = Logger(label: "inkra.emulator"))
        async throws(EmulatorError)
    {
        try await self.init(options: options, table: table, memoryTable: nil, state: nil, logger: logger)
    }

    private init(
        options: EmulatorOptions,
        table: any Table,
        memoryTable: InMemoryTable?,
        state: StateFile?,
        logger: Logger
    ) async throws(EmulatorError) {
        self.options = options
        self.table = table
        self.memoryTable = memoryTable
        self.state = state
        self.logger = logger
        let limits: TierLimits
        if let file = options.limitsFile {
            do {
                limits = try TierLimits(contentsOfFile: file.path)
            } catch {
                throw EmulatorError("--limits: \(error)")
            }
        } else {
            limits = TierLimits()
        }
        // The verifiers' own clock: the functions give them each request's time instead.
        let now = options.clock
        let store = TableUsageStore(table: table, tableName: options.tableName)
        self.store = store
        let keys = try Self.keySource(options)
        let generator = TemplateQuestionGenerator(seed: options.seed)
        let accounts = localAccounts
        // The stack's parts, with the verifier of one pool.
        @Sendable func parts(verifying configuration: CognitoConfiguration, with poolKeys: any KeySource)
            -> FunctionList.Dependencies
        {
            FunctionList.Dependencies(
                limits: limits, logger: logger, upgradeURL: options.upgradeURL, store: store,
                verifier: TokenVerifier(configuration: configuration, keys: poolKeys, now: now, logger: logger),
                generator: generator, directory: accounts, clock: now)
        }
        let dependencies = parts(verifying: try options.cognitoConfiguration(), with: keys)
        // Each trusted pool's authorizer, built by the same list on first use.
        trustedPools = TrustedPools { configuration, poolKeys in
            try? await Self.authorizer(parts(verifying: configuration, with: poolKeys ?? keys))
        }
        // A limits file is read again as the runtime reads its own (`INKRA_LIMITS_MAX_AGE`), so a
        // changed file reaches the next call a max age later, on the stack's clock.
        let refresh = options.limitsFile.map {
            LimitsRefresh(source: .file($0.path), limits: limits, maxAge: options.limitsMaxAge, logger: logger)
        }
        var functions: [FunctionName: any EventHandler] = [:]
        do {
            for name in FunctionName.allCases where name != .authorizer {
                guard
                    let function = try await FunctionList.standard.function(
                        name.rawValue, dependencies: dependencies, refresh: refresh)
                else { throw EmulatorError("the shipped function list has no \(name)") }
                functions[name] = function
            }
            guard let authorizer = try await Self.authorizer(dependencies) else {
                throw EmulatorError("the shipped function list's authorizer is not an Authorizer")
            }
            self.authorizer = authorizer
        } catch let error as EmulatorError {
            throw error
        } catch {
            throw EmulatorError("building the functions: \(error)")
        }
        self.functions = functions
    }

    /// The shipped list's authorizer. It answers with tiers, never limits, so it is not built again
    /// when they change; it is kept unwrapped for `PoolRoutingAuthorizer.explained`.
    private static func authorizer(_ dependencies: FunctionList.Dependencies) async throws -> Authorizer? {
        try await FunctionList.standard.function(
            FunctionName.authorizer.rawValue, dependencies: dependencies, refresh: nil) as? Authorizer
    }

    /// The time a function runs at when no event says otherwise: `--now` when set, else the
    /// real time.
    package func now() -> Timestamp {
        options.now ?? options.clock()
    }

    /// The context of an invocation in-process, at `time` (else ``now()``): its logger is the
    /// stack's, with the request id in its metadata.
    package func context(at time: Timestamp? = nil) -> InvocationContext {
        let requestID = RequestID.make()
        var logger = self.logger
        logger[metadataKey: "requestId"] = "\(requestID)"
        return InvocationContext(requestID: requestID, time: time ?? now(), logger: logger)
    }

    /// The function of a name.
    package func handler(for function: FunctionName) -> any EventHandler {
        if function == .authorizer { return PoolRoutingAuthorizer(fallback: authorizer, pools: trustedPools) }
        // Every name was built at start-up.
        return functions[function] ?? authorizer
    }

    /// API Gateway's chain in front of the functions.
    package var gateway: GatewayChain { GatewayChain(stack: self, target: nil, recordedTime: nil) }

    /// Writes the in-memory table to the state file, when one was named, with `serve`'s local user
    /// pool (the pool section already in the file is kept when `userPool` is `nil`).
    /// - Throws: ``EmulatorError`` naming the file.
    package func saveState(userPool: @autoclosure () -> UserPoolSnapshot? = nil) throws(EmulatorError) {
        guard let state, let memoryTable else { return }
        try state.save(memoryTable, journal: journal, userPool: userPool())
    }

    /// A DynamoDB client for an endpoint, with credentials and region from the environment (any
    /// credentials do for local servers).
    package static func dynamoDB(
        _ endpoint: HTTPURL, environment: [String: String] = ProcessInfo.processInfo.environment,
        now: @escaping @Sendable () -> Timestamp
    ) -> DynamoDBTable {
        // The package's one reader of the AWS variables. The endpoint is given here, so an
        // AWS_ENDPOINT_URL_* that is not a URL concerns another client and is not this one's error.
        let settings = (try? AWSSettings(environment: environment)) ?? AWSSettings()
        return DynamoDBTable(
            endpoint: endpoint,
            region: settings.region ?? "us-east-1",
            credentials: AWSCredentials(
                accessKeyID: settings.accessKeyID ?? "local",
                secretAccessKey: settings.secretAccessKey ?? "local",
                sessionToken: settings.sessionToken
            ),
            now: now
        )
    }

    private static func keySource(_ options: EmulatorOptions) throws(EmulatorError) -> any KeySource {
        if let file = options.jwksFile {
            do {
                return try JWKSKeySource(contentsOfFile: file.path)
            } catch {
                throw EmulatorError("--jwks \(file.path): \(error)")
            }
        }
        if options.trustsDevelopmentKey {
            guard let key = options.developmentKey else {
                throw EmulatorError("no development key is loaded and no --jwks, --issuer or --user-pool-id was given")
            }
            do {
                return try JWKSKeySource(jwks: Array(key.jwks))
            } catch {
                throw EmulatorError("development JWKS: \(error)")
            }
        }
        let url = try options.cognitoConfiguration().jwksURL
        return RemoteKeySource(url: url, fetch: Self.fetch, now: options.clock)
    }

    /// Fetches a pool's JWKS over HTTPS, with the client the functions use (as `bootstrap` does).
    @Sendable private static func fetch(_ url: HTTPURL) async throws -> [UInt8] {
        let response = try await OutboundHTTPClient.shared.execute(
            OutboundRequest(url: url), timeout: .seconds(5), maximumResponseBytes: 1024 * 1024)
        guard response.status == 200 else {
            throw EmulatorError("\(url.absoluteString) answered HTTP \(response.status)")
        }
        return response.body
    }
}
