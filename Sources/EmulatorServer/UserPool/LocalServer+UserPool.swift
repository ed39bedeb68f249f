import EmulatorKit
import Foundation
import InkraAuth
import LocalUserPool
import Logging
import ServiceLifecycle

extension LocalServer {
    /// The local user pool's endpoint when `--cognito-port` is set and the stack has the development
    /// key to sign with; its users come back from `--state`, and each change is in the state's
    /// journal before it is answered.
    /// - Throws: ``EmulatorError`` when the state file's user pool section is corrupt.
    static func userPoolEndpoint(stack: EmulatorStack, configuration: ServeConfiguration) throws(EmulatorError)
        -> CognitoEndpoint?
    {
        guard let port = configuration.cognitoPort, let key = stack.options.developmentKey else { return nil }
        let snapshot = try stack.state?.loadUserPool()
        let pool = UserPool(
            settings: configuration.userPool, signer: key.signer,
            issuer: configuration.userPool.issuer(localEndpoint: "http://\(configuration.host):\(port)"),
            snapshot: snapshot,
            now: stack.options.clock, logger: Logger(label: "inkra.userpool"),
            announce: { line in FileHandle.standardError.write(Data("inkra-emulator: \(line)\n".utf8)) },
            journal: stack.journal)
        stack.localAccounts.attach(pool)
        return CognitoEndpoint(pool: pool)
    }

    /// Once the pool's port is bound: its issuer is `http://HOST:PORT/<poolId>` (or Cognito's URL in
    /// the form `--pool-issuer` names), and the stack's
    /// authorizer trusts it (with both app clients and the token use the stack accepts) unless the
    /// stack was told to trust another pool.
    func trustUserPool(at endpoint: URL?) {
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

    /// Writes `--state`: the table and the local user pool's users, groups and issued tokens.
    /// - Throws: ``EmulatorError`` naming the file.
    func saveStateWithUserPool() throws(EmulatorError) {
        try stack.saveState(userPool: cognito?.pool.snapshot)
    }
}

/// The local user pool's server: on its port, or, when that port is in use and `--cognito-port`
/// was not given, on a free one (so `serve` starts next to another `serve` rather than failing on a
/// port nobody asked for; the banner prints the one bound).
struct FallbackPortService<App: Service>: Service, CustomStringConvertible {
    let host: String
    let port: Int
    let fallsBack: Bool
    let make: @Sendable (Int) -> App

    var description: String { "server on \(host):\(port) (--cognito-port)" }

    func run() async throws {
        do {
            try await make(port).run()
        } catch  where fallsBack && port != 0 && LocalServer.reason(error) == "the port is in use" {
            try await BoundService(application: make(0), flag: "--cognito-port", address: "\(host):0").run()
        } catch {
            throw EmulatorError("cannot listen on \(host):\(port) (--cognito-port): \(LocalServer.reason(error))")
        }
    }
}
