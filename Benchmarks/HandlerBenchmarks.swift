import EmulatorKit
import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTime
import InkraUsage
import SingleTable
import _CryptoExtras

/// The handlers in-process, the consume transaction, and the RSA floor they are compared with.
struct HandlerBenchmarks {
    let key: DevelopmentKey
    let report: Report
    let scale: Double

    /// Limits no benchmark loop reaches, so every call does the full work of an admitted request.
    static let roomy = TierLimits([
        "free": Limits(monthly: 900_000_000, daily: 900_000_000, hourly: 900_000_000),
        "premium": Limits(monthly: 900_000_000, daily: 900_000_000, hourly: 900_000_000),
    ])

    func iterations(_ count: Int) -> Int { max(1, Int(Double(count) * scale)) }

    /// Runs the parts named (`rsa`, `authorizer`, `proxy`, `consume`), or all of them.
    func run(_ parts: Set<String> = []) async throws {
        if parts.isEmpty || parts.contains("rsa") { try rsaFloor() }
        if parts.isEmpty || parts.contains("authorizer") { try await authorizer() }
        if parts.isEmpty || parts.contains("proxy") { try await proxyFunctions() }
        if parts.isEmpty || parts.contains("consume") { try await consumeTransaction() }
    }

    /// One RS256 verification with BoringSSL (through swift-crypto): the floor of any token check.
    func rsaFloor() throws {
        let privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let message = Data(repeating: 0x61, count: 600)
        let signature = try privateKey.signature(for: message, padding: .insecurePKCS1v1_5)
        let publicKey = privateKey.publicKey
        report.add(
            Harness.measureSync("RSA-2048 verification (swift-crypto, baseline)", batch: 100, samples: iterations(50)) {
                guard publicKey.isValidSignature(signature, for: message, padding: .insecurePKCS1v1_5) else {
                    fatalError("signature does not verify")
                }
            })
    }

    func tokenEvent(_ token: String) -> JSONValue {
        [
            "type": "TOKEN", "authorizationToken": .string("Bearer \(token)"),
            "methodArn": "arn:aws:execute-api:us-east-1:123456789012:inkra0local/prod/POST/questions",
        ]
    }

    func authorizer() async throws {
        let now = Timestamp.now
        let token = try DevelopmentTokens.mint(with: key, claims: .init(sub: "bench-user", tier: "premium"), at: now)
        let event = tokenEvent(token)
        let configuration = CognitoConfiguration(issuer: DevelopmentKey.issuer, clientIds: [DevelopmentKey.clientID])
        let clock: @Sendable () -> Timestamp = { now }
        let context = InvocationContext(time: now)
        let jwks = Array(key.jwks)
        report.add(
            try await Harness.measure("authorizer, first call (JWKS and key parse)", batch: 10, samples: iterations(30))
            {
                let verifier = TokenVerifier(
                    configuration: configuration, keys: try JWKSKeySource(jwks: jwks), now: clock)
                let authorizer = Authorizer(verifier: verifier)
                _ = try await authorizer.handle(event, context: context)
            })
        let verifier = TokenVerifier(configuration: configuration, keys: try JWKSKeySource(jwks: jwks), now: clock)
        let authorizer = Authorizer(verifier: verifier)
        report.add(
            try await Harness.measure("authorizer, warm (TOKEN event)", batch: 50, samples: iterations(60)) {
                _ = try await authorizer.handle(event, context: context)
            })
    }

    /// A REST proxy event as API Gateway passes it on after the authorizer allowed it.
    static func authorizedEvent(_ kind: SampleEvents.Kind, user: String, at time: Timestamp) -> JSONValue {
        let event = SampleEvents.event(kind, token: nil, at: time)
        guard var object = event.object, var context = object["requestContext"]?.object else { return event }
        context["authorizer"] = [
            "principalId": .string(user), "sub": .string(user), "tier": "premium", "quota": "900000000",
            "email": "bench@example.com",
        ]
        object["requestContext"] = .object(context)
        return .object(object)
    }

    func proxyFunctions() async throws {
        let now = Timestamp.now
        let table = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
        let store = TableUsageStore(table: table, tableName: "inkra-usage")
        let context = InvocationContext(time: now)
        let check = CheckUsage(store: store, limits: Self.roomy)
        let generate = GenerateQuestions(
            store: store, generator: TemplateQuestionGenerator(seed: 1), limits: Self.roomy)
        let usageEvent = Self.authorizedEvent(.restUsage, user: "bench-user", at: now)
        let generateEvent = Self.authorizedEvent(.restGenerate, user: "bench-user", at: now)
        guard try await generate.handle(generateEvent, context: context)["statusCode"]?.int == 200,
            try await check.handle(usageEvent, context: context)["statusCode"]?.int == 200
        else { throw BenchmarkError("the proxy functions did not answer 200") }
        report.add(
            try await Harness.measure("checkUsage end to end (in-memory table)", batch: 200, samples: iterations(60)) {
                _ = try await check.handle(usageEvent, context: context)
            })
        report.add(
            try await Harness.measure(
                "generateQuestions end to end (in-memory table, template generator)", batch: 100,
                samples: iterations(60)
            ) {
                _ = try await generate.handle(generateEvent, context: context)
            })
    }

    func consumeTransaction() async throws {
        let now = Timestamp.now
        let table = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
        let store = TableUsageStore(table: table, tableName: "inkra-usage")
        let limits = Limits(monthly: 900_000_000, daily: 900_000_000, hourly: 900_000_000)
        let request = ConsumeRequest(userID: "bench-user", instant: now, limits: limits)
        report.add(
            try await Harness.measure(
                "consume transaction, 1 thread (in-memory)", batch: 1_000, samples: iterations(60)
            ) {
                _ = try await store.consume(request)
            })
        let perTask = iterations(50_000)
        let contended = try await Harness.once(
            "consume transaction, 2 threads on one user (in-memory)", operations: 2 * perTask
        ) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        for _ in 0..<perTask { _ = try await store.consume(request) }
                    }
                }
                try await group.waitForAll()
            }
        }
        report.add(contended)
    }
}
