import Crypto
import EmulatorKit
import Foundation
import InkraAuth
import InkraTesting
import InkraTime
import Synchronization
import Testing

@testable import LocalUserPool

/// A pool over the development key (emulator/dev-keys), on a settable clock, with fewer PBKDF2
/// rounds than the pool's default so a test signs many users in quickly.
final class PoolFixture: Sendable {
    static let key: DevelopmentKey = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try! DevelopmentKey(directory: root.appendingPathComponent("emulator/dev-keys"))
    }()
    static let issuer = "http://127.0.0.1:9229/us-east-1_InkraLocal"
    static let appClient = "inkra-local-client"
    static let cliClient = "inkra-local-cli-client"
    static let password = "Correct-Horse-9battery"

    let clock = ManualClock(Timestamp(timeIntervalSince1970: 1_762_326_189))
    let pool: UserPool

    /// - Parameters:
    ///   - issuerForm: Cognito's issuer form for the tokens; `nil` for the local URL.
    ///   - journal: where the pool writes each change before answering.
    init(
        rounds: Int = 1_000, snapshot: UserPoolSnapshot? = nil, issuerForm: IssuerForm? = nil,
        journal: (any UserPoolJournal)? = nil
    ) {
        var settings = UserPoolSettings()
        settings.hashRounds = rounds
        settings.issuerForm = issuerForm
        let clock = self.clock
        pool = UserPool(
            settings: settings, signer: Self.key.signer,
            issuer: settings.issuer(localEndpoint: "http://127.0.0.1:9229"), snapshot: snapshot,
            now: clock.closure, journal: journal)
    }

    func advance(_ seconds: TimeInterval) { clock.advance(by: .seconds(seconds)) }

    /// Signs a user up and confirms them with the code the pool logged (read from its state).
    @discardableResult
    func confirmedUser(_ email: String, password: String = password) throws -> String {
        let (sub, _) = try pool.signUp(clientID: Self.appClient, username: email, password: password, attributes: [])
        let code = try #require(pool.state.withLock { $0.snapshot.users.first { $0.sub == sub }?.pendingCode?.code })
        try pool.confirmSignUp(clientID: Self.appClient, username: email, code: code)
        return sub
    }

    /// Signs in with USER_PASSWORD_AUTH through the test-only client.
    func signIn(_ email: String, password: String = password) throws -> AuthTokens {
        let outcome = try pool.initiateAuth(
            clientID: Self.cliClient, flow: "USER_PASSWORD_AUTH", parameters: ["USERNAME": email, "PASSWORD": password])
        guard case .tokens(let tokens) = outcome else { throw CognitoError("Test", "expected tokens, got \(outcome)") }
        return tokens
    }
}

/// The client's half of SRP-6a, as Cognito's clients compute it (for the tests).
struct TestSRPClient {
    let secret = BigUInt(bytes: (0..<64).map { _ in UInt8.random(in: 0...255) })
    var clientPublic: BigUInt { SRP.generator.power(secret, modulus: SRP.prime) }

    func signature(
        challenge: [String: String], password: String, poolName: String = "InkraLocal", timestamp: String
    ) throws -> String {
        let userID = try #require(challenge["USER_ID_FOR_SRP"])
        let salt = try #require(BigUInt(hex: challenge["SALT"] ?? ""))
        let serverPublic = try #require(BigUInt(hex: challenge["SRP_B"] ?? ""))
        let block = try #require(Data(base64Encoded: challenge["SECRET_BLOCK"] ?? ""))
        let x = SRP.privateKey(salt: salt, poolName: poolName, userID: userID, password: password)
        let u = SRP.scrambler(clientPublic: clientPublic, serverPublic: serverPublic)
        let kgx = (SRP.multiplier * SRP.generator.power(x, modulus: SRP.prime)) % SRP.prime
        let base = (serverPublic + SRP.prime - kgx) % SRP.prime
        let shared = base.power(secret + u * x, modulus: SRP.prime)
        let key = HKDFHelper.key(shared: shared, u: u)
        let signature = SRP.signature(
            key: key, poolName: poolName, userID: userID, secretBlock: Array(block), timestamp: timestamp)
        return Data(signature).base64EncodedString()
    }
}

enum HKDFHelper {
    static func key(shared: BigUInt, u: BigUInt) -> [UInt8] {
        let prk = HMAC<SHA256>.authenticationCode(for: SRP.padded(shared), using: SymmetricKey(data: SRP.padded(u)))
        let okm = HMAC<SHA256>.authenticationCode(
            for: Array("Caldera Derived Key".utf8) + [1], using: SymmetricKey(data: Array(prk)))
        return Array(Array(okm).prefix(16))
    }
}
