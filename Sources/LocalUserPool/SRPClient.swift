import Foundation
import InkraTime

/// The client's half of Cognito's `USER_SRP_AUTH`, for `replay endpoint` signing a test user in
/// through an app client that allows nothing else (the template's). The same group, hashes and
/// encodings as ``SRP`` (the server's half, which the local pool runs), in the steps Amplify's
/// `AuthenticationHelper` and pycognito's `aws_srp.py` take:
///
/// 1. `InitiateAuth` with `SRP_A` = ``clientPublicHex`` (A = g^a mod N);
/// 2. the `PASSWORD_VERIFIER` challenge brings `SALT`, `SRP_B`, `SECRET_BLOCK` and
///    `USER_ID_FOR_SRP`; ``responses(to:password:at:)`` computes
///    S = (B − k·g^x)^(a + u·x) mod N, the session key from it, and the claim's signature;
/// 3. `RespondToAuthChallenge` with those responses answers the tokens.
///
/// Emulator tooling only: ``BigUInt`` is not constant-time.
package struct SRPClient: Sendable {
    /// The pool's id, `REGION_NAME`; its name (after `_`) goes into x and into the signature.
    package let poolID: String
    /// a, the client's secret.
    private let secret: BigUInt
    /// A = g^a mod N.
    private let clientPublic: BigUInt

    /// A client for a pool, with a fresh 256-bit secret from `generator`.
    package init(poolID: String, using generator: inout some RandomNumberGenerator) {
        self.init(poolID: poolID, secret: UserPool.randomBytes(32, &generator))
    }

    /// A client with a given secret (big-endian bytes): known-value tests.
    package init(poolID: String, secret: [UInt8]) {
        self.poolID = poolID
        // a = 0 would make A = 1, which a server may accept but is no secret at all.
        let value = BigUInt(bytes: secret)
        self.secret = value.isZero ? BigUInt(1) : value
        self.clientPublic = SRP.generator.power(self.secret, modulus: SRP.prime)
    }

    /// `SRP_A`: A in hex, as `InitiateAuth`'s `AuthParameters` carry it.
    package var clientPublicHex: String { clientPublic.hex }

    /// The pool's name: its id after the `_`.
    private var poolName: String {
        poolID.split(separator: "_", maxSplits: 1).last.map(String.init) ?? poolID
    }

    /// The `ChallengeResponses` of `RespondToAuthChallenge` for a `PASSWORD_VERIFIER` challenge.
    /// - Parameters:
    ///   - challenge: the challenge's `ChallengeParameters` (`SALT`, `SRP_B`, `SECRET_BLOCK`,
    ///     `USER_ID_FOR_SRP`).
    ///   - password: the user's password.
    ///   - date: the instant the claim is made (`TIMESTAMP`).
    /// - Returns: `USERNAME`, `PASSWORD_CLAIM_SECRET_BLOCK`, `PASSWORD_CLAIM_SIGNATURE` and `TIMESTAMP`.
    /// - Throws: ``SRPClientError`` naming the parameter that is missing or not valid.
    package func responses(to challenge: [String: String], password: String, at date: Timestamp) throws(SRPClientError)
        -> [String: String]
    {
        func parameter(_ name: String) throws(SRPClientError) -> String {
            guard let value = challenge[name], !value.isEmpty else {
                throw SRPClientError("the PASSWORD_VERIFIER challenge has no \(name)")
            }
            return value
        }
        let userID = try parameter("USER_ID_FOR_SRP")
        let secretBlockText = try parameter("SECRET_BLOCK")
        guard let salt = BigUInt(hex: try parameter("SALT")) else {
            throw SRPClientError("the challenge's SALT is not hex")
        }
        guard let serverPublic = BigUInt(hex: try parameter("SRP_B")) else {
            throw SRPClientError("the challenge's SRP_B is not hex")
        }
        guard let secretBlock = Data(base64Encoded: secretBlockText) else {
            throw SRPClientError("the challenge's SECRET_BLOCK is not base64")
        }
        let timestamp = SRP.timestamp(date)
        let key = try sessionKey(serverPublic: serverPublic, salt: salt, userID: userID, password: password)
        let signature = SRP.signature(
            key: key, poolName: poolName, userID: userID, secretBlock: Array(secretBlock), timestamp: timestamp)
        return [
            "USERNAME": userID, "PASSWORD_CLAIM_SECRET_BLOCK": secretBlockText,
            "PASSWORD_CLAIM_SIGNATURE": Data(signature).base64EncodedString(), "TIMESTAMP": timestamp,
        ]
    }

    /// The 16-byte session key both sides derive: HKDF-SHA256 of PAD(S), salt PAD(u).
    func sessionKey(serverPublic: BigUInt, salt: BigUInt, userID: String, password: String)
        throws(SRPClientError) -> [UInt8]
    {
        let prime = SRP.prime
        // SRP-6a's client checks: B mod N ≠ 0 and u ≠ 0, or the server could fix the key.
        guard !(serverPublic % prime).isZero else { throw SRPClientError("the challenge's SRP_B is 0 mod N") }
        let u = SRP.scrambler(clientPublic: clientPublic, serverPublic: serverPublic)
        guard !u.isZero else { throw SRPClientError("the challenge's SRP_B gives u = 0") }
        let x = SRP.privateKey(salt: salt, poolName: poolName, userID: userID, password: password)
        let subtracted = (SRP.multiplier * SRP.generator.power(x, modulus: prime)) % prime
        let base = ((serverPublic % prime) + prime - subtracted) % prime
        return SRP.derivedKey(shared: base.power(secret + u * x, modulus: prime), scrambler: u)
    }
}

/// Why the SRP client cannot answer a challenge.
package struct SRPClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, naming the parameter.
    package var message: String

    init(_ message: String) { self.message = message }

    package var description: String { message }
}
