import Foundation
import HTTPText
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTime
import Logging
import Metrics
import Synchronization
import Testing

/// Counters kept by label, for one authorizer.
final class RecordingMetrics: MetricsFactory {
    final class Count: CounterHandler {
        let value = Mutex<Int64>(0)
        func increment(by amount: Int64) { value.withLock { $0 += amount } }
        func reset() { value.withLock { $0 = 0 } }
    }

    final class Nothing: RecorderHandler, TimerHandler {
        func record(_ value: Int64) {}
        func record(_ value: Double) {}
        func recordNanoseconds(_ duration: Int64) {}
    }

    private let counters = Mutex<[String: Count]>([:])

    /// How many times the counter with this label was incremented.
    func count(_ label: String) -> Int64 { counters.withLock { $0[label] }?.value.withLock { $0 } ?? 0 }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        counters.withLock { counters in
            if let counter = counters[label] { return counter }
            let counter = Count()
            counters[label] = counter
            return counter
        }
    }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        Nothing()
    }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { Nothing() }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}

/// Every log line, rendered with its metadata as a log shipper would see it.
final class CapturedLog: Sendable {
    let lines = Mutex<[(level: Logger.Level, text: String)]>([])

    struct Handler: LogHandler {
        let log: CapturedLog
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            log.lines.withLock { $0.append((event.level, "\(event.message) \(rendered)")) }
        }
    }

    var logger: Logger { Logger(label: "inkra.authorizer") { _ in Handler(log: self) } }
    var text: String { lines.withLock { $0.map(\.text).joined(separator: "\n") } }
}

/// A key source that throws as a JWKS endpoint that cannot be reached makes a source throw.
struct UnreachableKeySource: KeySource {
    struct ConnectionRefused: Error, CustomStringConvertible {
        var description: String {
            "cannot fetch https://cognito-idp.us-east-1.amazonaws.com/us-east-1_TestPool/.well-known/jwks.json: "
                + "connect(2) failed: Connection refused (errno 111)"
        }
    }

    func key(withID kid: String, in scope: RequestScope) async throws -> VerificationKey? { throw ConnectionRefused() }

    /// What the runtime's JWKS fetch (bootstrap's HTTPSFetch) throws for any status but 200.
    struct Status: Error, CustomStringConvertible {
        var description: String
    }
}

/// The authorizer tells a bad token (401) from a token it cannot check, held to API Gateway's
/// documentation of Lambda authorizers:
/// - https://docs.aws.amazon.com/apigateway/latest/developerguide/call-api-with-api-gateway-lambda-authorization.html
///   — an authorizer that fails with "Unauthorized" gets the caller a 401; one that fails with any
///   other error (the example's "fail" token) gets a 500 Internal Server Error;
/// - https://docs.aws.amazon.com/apigateway/latest/developerguide/supported-gateway-response-types.html
///   — that 500 is the AUTHORIZER_CONFIGURATION_ERROR gateway response ("failing to connect to a
///   custom or Amazon Cognito authorizer"), not UNAUTHORIZED's 401.
/// So a JWKS that cannot be had must fail the invocation with an error other than "Unauthorized":
/// the app then retries instead of signing its user out.
@Suite("authorizer: bad tokens versus a key source that cannot answer")
struct AuthorizerKeySourceTests {
    static let jwksURL = HTTPURL(
        string: "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_TestPool/.well-known/jwks.json")!

    /// An authorizer over `keys`, with its log and metrics.
    struct Subject {
        let authorizer: Authorizer
        let log = CapturedLog()
        let metrics = RecordingMetrics()

        init(keys: any KeySource) {
            let verifier = TokenVerifier(
                configuration: CognitoConfiguration(issuer: AuthorizerTests.issuer, clientIds: ["app-client"]),
                keys: keys, now: { AuthorizerTests.now }, logger: log.logger)
            authorizer = Authorizer(verifier: verifier, metrics: metrics)
        }

        /// The invocation's context, its logger this subject's log.
        var context: InvocationContext {
            var context = AuthorizerTests.context
            context.logger = log.logger
            return context
        }

        /// The invocation's failure, or `nil` when it answered.
        func failure(_ event: JSONValue) async -> FunctionError? {
            do {
                _ = try await authorizer.handle(event, context: context)
                return nil
            } catch {
                return error
            }
        }
    }

    /// A fetch's time limit; only the timeout's own test sets a short one (see
    /// `KeySourceFailureTests.source`: a busy test process can outrun a 3 s limit).
    static func remote(timeout: Duration = .seconds(60), _ fetch: @escaping @Sendable (HTTPURL) async throws -> [UInt8])
        -> RemoteKeySource
    {
        RemoteKeySource(url: jwksURL, fetch: fetch, now: { AuthorizerTests.now }, timeout: timeout)
    }

    static func httpEvent(_ token: String) -> JSONValue {
        [
            "version": "2.0", "type": "REQUEST",
            "routeArn": "arn:aws:execute-api:us-east-1:123456789012:abcdef123/$default/POST/questions",
            "identitySource": [.string("Bearer \(token)")], "routeKey": "POST /questions",
        ]
    }

    /// Checks one key-source failure as a user and an operator see it.
    static func expectKeySourceFailure(
        _ subject: Subject, token: String, detail: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let failure = try #require(
            await subject.failure(AuthorizerTests.tokenEvent(token)), sourceLocation: sourceLocation)
        #expect(failure != .unauthorized, sourceLocation: sourceLocation)
        #expect(failure.errorType == "KeySourceUnavailable", sourceLocation: sourceLocation)
        #expect(failure.errorMessage != "Unauthorized", sourceLocation: sourceLocation)
        #expect(failure.errorMessage.hasPrefix("cannot check tokens: "), sourceLocation: sourceLocation)
        #expect(failure.errorMessage.contains(detail), "\(failure)", sourceLocation: sourceLocation)
        #expect(subject.metrics.count("AuthorizerKeySourceFailure") == 1, sourceLocation: sourceLocation)
        #expect(subject.metrics.count("AuthFailure") == 0, sourceLocation: sourceLocation)
        let errors = subject.log.lines.withLock { $0.filter { $0.level == .error }.map(\.text) }
        #expect(errors.count == 1, "\(subject.log.text)", sourceLocation: sourceLocation)
        #expect(
            errors.first?.hasPrefix("cannot check the token: the key source did not answer") == true,
            sourceLocation: sourceLocation)
        #expect(errors.first?.contains(detail) == true, "\(subject.log.text)", sourceLocation: sourceLocation)
        // Nothing of the token reaches the log: not the token, nor its signature or payload.
        for part in [token] + token.split(separator: ".").dropFirst().map(String.init) {
            #expect(!subject.log.text.contains(part), "\(subject.log.text)", sourceLocation: sourceLocation)
        }
    }

    @Test("A key source that throws, as for an unreachable JWKS, fails the invocation: not Unauthorized")
    func unreachableFake() async throws {
        let subject = Subject(keys: UnreachableKeySource())
        try await Self.expectKeySourceFailure(subject, token: try AuthorizerTests.token(), detail: "Connection refused")
    }

    @Test("HTTP API simple responses fail too, rather than answering isAuthorized false (a 403)")
    func unreachableSimple() async throws {
        let subject = Subject(keys: UnreachableKeySource())
        let failure = try #require(await subject.failure(Self.httpEvent(try AuthorizerTests.token())))
        #expect(failure.errorType == "KeySourceUnavailable")
        #expect(subject.metrics.count("AuthorizerKeySourceFailure") == 1)
        let refused = try await Subject(keys: UnreachableKeySource()).authorizer.handle(
            Self.httpEvent("garbage"), context: AuthorizerTests.context)
        #expect(refused == ["isAuthorized": false])
    }

    @Test(
        "A remote JWKS that cannot be fetched, answers 503, or is not a JWKS fails the invocation",
        arguments: ["unreachable", "503", "not a JWKS"])
    func remoteFailures(failure: String) async throws {
        let subject = Subject(
            keys: Self.remote { url in
                switch failure {
                case "unreachable": throw UnreachableKeySource.ConnectionRefused()
                case "503":
                    throw UnreachableKeySource.Status(description: "JWKS \(url.absoluteString) answered HTTP 503")
                default: return Array("<html><body>Service Unavailable</body></html>".utf8)
                }
            })
        let detail = ["unreachable": "Connection refused", "503": "answered HTTP 503"][failure] ?? "not valid JSON"
        try await Self.expectKeySourceFailure(subject, token: try AuthorizerTests.token(), detail: detail)
    }

    @Test("A remote JWKS that does not answer in time fails the invocation")
    func remoteTimeout() async throws {
        let subject = Subject(
            keys: Self.remote(timeout: .milliseconds(50)) { _ in
                try await Task.sleep(for: .seconds(3600))
                return authorizerSigner.jwks
            })
        try await Self.expectKeySourceFailure(
            subject, token: try AuthorizerTests.token(), detail: "did not answer within")
    }

    @Test("A kid missing from a freshly fetched JWKS is a bad token: Unauthorized, counted as AuthFailure")
    func unknownKid() async throws {
        let subject = Subject(keys: Self.remote { _ in authorizerSigner.jwks })
        let stranger = try TokenSigner.generate(kid: "not-in-the-pool")
        var claims = DevelopmentClaims(
            sub: "user-1", clientId: "app-client", issuer: AuthorizerTests.issuer,
            issuedAt: AuthorizerTests.now.addingTimeInterval(-60),
            expiresAt: AuthorizerTests.now.addingTimeInterval(600))
        claims.email = "user-1@example.com"
        let failure = await subject.failure(AuthorizerTests.tokenEvent(try stranger.sign(claims)))
        #expect(failure == .unauthorized)
        #expect(subject.metrics.count("AuthFailure") == 1)
        #expect(subject.metrics.count("AuthorizerKeySourceFailure") == 0)
        #expect(subject.log.lines.withLock { $0.filter { $0.level == .error } }.isEmpty, "\(subject.log.text)")
    }

    @Test("A good token over a reachable JWKS is allowed, and nothing is counted as a failure")
    func reachable() async throws {
        let subject = Subject(keys: Self.remote { _ in authorizerSigner.jwks })
        let result = try await subject.authorizer.handle(
            AuthorizerTests.tokenEvent(try AuthorizerTests.token()), context: AuthorizerTests.context)
        #expect(result["policyDocument"]?["Statement"]?.array?.first?["Effect"] == "Allow")
        #expect(subject.metrics.count("AuthFailure") == 0)
        #expect(subject.metrics.count("AuthorizerKeySourceFailure") == 0)
    }
}
