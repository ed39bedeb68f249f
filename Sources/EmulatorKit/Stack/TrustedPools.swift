import Foundation
import HTTPText
import InkraAuth
import InkraHandlers
import InkraJSON
import Synchronization

/// User pools the stack's authorizer trusts besides the one its options name: `serve`'s local
/// user pool, whose issuer (`http://HOST:PORT/<poolId>`) is known only once its port is bound.
///
/// Each trusted pool gets its own ``Authorizer`` with the stack's key source and limits; a token
/// goes to the one whose issuer its (not yet verified) `iss` names, and every other token to the
/// stack's own authorizer. Each authorizer verifies fully, so the routing claim decides nothing by
/// itself: a token that lies about its issuer fails that pool's signature or client checks.
package final class TrustedPools: Sendable {
    private let make: @Sendable (CognitoConfiguration, (any KeySource)?) async -> Authorizer?
    private let pools = Mutex<[String: Pool]>([:])

    /// A trusted pool, and its authorizer once a token of it came.
    private struct Pool {
        let configuration: CognitoConfiguration
        let keys: (any KeySource)?
        var authorizer: Authorizer?
    }

    /// Pools whose authorizers `make` builds on first use, with a pool's own keys when it has them
    /// (else the stack's); `nil`, a pool whose tokens the stack's own authorizer answers (and so
    /// refuses).
    package init(make: @escaping @Sendable (CognitoConfiguration, (any KeySource)?) async -> Authorizer?) {
        self.make = make
    }

    /// Trusts a pool from now on.
    /// - Parameters:
    ///   - configuration: the pool's issuer, app clients and token use.
    ///   - keys: its keys (a recording's JWKS); the stack's key source when `nil`.
    package func trust(_ configuration: CognitoConfiguration, keys: (any KeySource)? = nil) {
        pools.withLock { $0[configuration.issuer] = Pool(configuration: configuration, keys: keys) }
    }

    /// The issuers trusted besides the stack's own.
    package var issuers: [String] { pools.withLock { Array($0.keys).sorted() } }

    /// The pools trusted besides the stack's own, by issuer.
    package var configurations: [CognitoConfiguration] {
        pools.withLock { $0.values.map(\.configuration) }.sorted { $0.issuer < $1.issuer }
    }

    /// The authorizer for an authorizer event: the trusted pool's its token names (built the first
    /// time), or `fallback`.
    func authorizer(for event: JSONValue, fallback: Authorizer) async -> Authorizer {
        guard !pools.withLock(\.isEmpty), let issuer = Self.unverifiedIssuer(of: event),
            let pool = pools.withLock({ $0[issuer] })
        else { return fallback }
        if let built = pool.authorizer { return built }
        guard let built = await make(pool.configuration, pool.keys) else { return fallback }
        pools.withLock { pools in
            // Kept unless the pool was trusted again meanwhile, with other settings.
            if pools[issuer]?.configuration == pool.configuration { pools[issuer]?.authorizer = built }
        }
        return built
    }

    /// The `iss` a TOKEN, REQUEST or HTTP API authorizer event's token claims, unverified.
    static func unverifiedIssuer(of event: JSONValue) -> String? {
        let candidates = [
            event["authorizationToken"]?.string, event["identitySource"]?.array?.first?.string,
            event["identitySource"]?.string,
            event["headers"]?.object?.value(forCaseInsensitiveKey: "authorization")?.string,
        ]
        guard let token = candidates.compactMap({ $0 }).first else { return nil }
        return (try? CompactToken(token))?.payload["iss"]?.string
    }
}

/// The stack's `authorizer` with ``TrustedPools`` in front: what API Gateway invokes.
struct PoolRoutingAuthorizer: EventHandler {
    let fallback: Authorizer
    let pools: TrustedPools

    func handle(_ event: JSONValue, context: InvocationContext) async throws(FunctionError) -> JSONValue {
        try await pools.authorizer(for: event, fallback: fallback).handle(event, context: context)
    }

    /// The answer, and why the token was refused when it was (``Authorizer/explained(_:context:)``).
    func explained(
        _ event: JSONValue, context: InvocationContext
    ) async -> (answer: Result<JSONValue, FunctionError>, refusal: String?) {
        await pools.authorizer(for: event, fallback: fallback).explained(event, context: context)
    }
}
