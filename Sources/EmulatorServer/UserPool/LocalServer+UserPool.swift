import EmulatorKit
import Foundation
import HTTPText
import InkraAuth
import LocalUserPool
import Logging

extension LocalServer {
    /// The local user pool's endpoint when `--cognito-port` is set and the stack has the development
    /// key to sign with; its users come back from `--state`, and each change is journaled first.
    /// - Throws: ``EmulatorError`` when the state file's user pool section is corrupt.
    static func userPoolEndpoint(stack: EmulatorStack, configuration: ServeConfiguration) throws(EmulatorError)
        -> CognitoEndpoint?
    {
        guard let port = configuration.ports[.cognito], let key = stack.options.developmentKey else { return nil }
        let pool = UserPool(
            settings: configuration.userPool, signer: key.signer,
            issuer: configuration.userPool.issuer(localEndpoint: "http://\(configuration.host):\(port)"),
            snapshot: try stack.state?.loadUserPool(), now: stack.options.clock,
            logger: Logger(label: "inkra.userpool"),
            announce: { note("inkra-emulator: \($0)") }, journal: stack.journal)
        stack.localAccounts.attach(pool)
        return CognitoEndpoint(pool: pool)
    }

    /// Once the pool's port is bound: its issuer is `http://HOST:PORT/<poolId>` (or the form
    /// `--pool-issuer` names), which the authorizer trusts unless told to trust another pool.
    func trustUserPool(at endpoint: HTTPURL?) {
        guard let cognito, let endpoint else { return }
        let settings = cognito.pool.settings
        cognito.pool.issuer = settings.issuer(localEndpoint: endpoint.absoluteString)
        // A Cognito issuer URL is not this server: the discovery document points at the keys here.
        cognito.pool.keysURL =
            settings.issuerForm == nil
            ? nil : endpoint.absoluteString + "/" + settings.poolID + "/.well-known/jwks.json"
        guard stack.options.trustsDevelopmentKey else { return }
        stack.trustedPools.trust(
            CognitoConfiguration(
                issuer: cognito.pool.issuer, clientIds: settings.clients.map(\.id), tokenUse: stack.options.tokenUse,
                clockTolerance: stack.options.clockSkew))
    }
}
