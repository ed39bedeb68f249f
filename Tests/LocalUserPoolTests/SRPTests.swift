import Foundation
import InkraTime
import Testing

@testable import LocalUserPool

/// SRP-6a as pycognito (a real Cognito client) computes it: the known values come from its
/// aws_srp.py (scripts/cognito-srp-vectors.py), so the server half here must agree with a client
/// that signs in to Amazon Cognito.
@Suite("SRP-6a: the server half agrees with a real Cognito client")
struct SRPTests {
    @Test("k = H(PAD(N) | PAD(g)) as Cognito's clients compute it")
    func multiplier() {
        #expect(SRP.multiplier.hex == KnownValues.multiplier)
    }

    @Test("x and the verifier v = g^x mod N from the pool name, the user id for SRP and the password")
    func verifier() throws {
        let salt = try #require(BigUInt(hex: KnownValues.salt))
        let x = SRP.privateKey(
            salt: salt, poolName: "InkraLocal", userID: KnownValues.userID, password: KnownValues.password)
        #expect(x.hex == KnownValues.privateKey)
        let v = SRP.verifier(
            salt: salt, poolName: "InkraLocal", userID: KnownValues.userID, password: KnownValues.password)
        #expect(v.hex == KnownValues.verifier)
    }

    @Test("B, the session key and PASSWORD_CLAIM_SIGNATURE match the client's")
    func signature() throws {
        let v = try #require(BigUInt(hex: KnownValues.verifier))
        let b = try #require(BigUInt(hex: KnownValues.serverSecret))
        let serverPublic = SRP.serverPublic(verifier: v, secret: b)
        #expect(serverPublic.hex == KnownValues.serverPublic)
        let clientPublic = try #require(BigUInt(hex: KnownValues.clientPublic))
        let key = try #require(
            SRP.sessionKey(clientPublic: clientPublic, serverPublic: serverPublic, secret: b, verifier: v))
        #expect(key.map { String($0, radix: 16).leftPadded(to: 2) }.joined() == KnownValues.sessionKey)
        let signature = SRP.signature(
            key: key, poolName: "InkraLocal", userID: KnownValues.userID, secretBlock: Array(0..<64),
            timestamp: KnownValues.timestamp)
        #expect(Data(signature).base64EncodedString() == KnownValues.signature)
    }

    @Test("a wrong password gives another verifier, so its proof cannot match")
    func wrongPassword() throws {
        let salt = try #require(BigUInt(hex: KnownValues.salt))
        let wrong = SRP.verifier(
            salt: salt, poolName: "InkraLocal", userID: KnownValues.userID, password: "Wrong-Horse-9battery")
        #expect(wrong.hex != KnownValues.verifier)
    }

    @Test("A ≡ 0 mod N is refused, as SRP-6a requires")
    func zeroClientPublic() throws {
        let v = try #require(BigUInt(hex: KnownValues.verifier))
        #expect(
            SRP.sessionKey(clientPublic: SRP.prime, serverPublic: BigUInt(7), secret: BigUInt(3), verifier: v) == nil)
        #expect(SRP.sessionKey(clientPublic: .zero, serverPublic: BigUInt(7), secret: BigUInt(3), verifier: v) == nil)
    }

    @Test("TIMESTAMP in Cognito's form: the day not zero-padded, UTC")
    func timestamp() {
        // 2025-11-05T07:03:09Z
        #expect(SRP.timestamp(Timestamp(timeIntervalSince1970: 1_762_326_189)) == "Wed Nov 5 07:03:09 UTC 2025")
        #expect(SRP.isWellFormed(timestamp: "Wed Nov 5 07:03:09 UTC 2025"))
        #expect(SRP.isWellFormed(timestamp: "Wed Nov 25 07:03:09 UTC 2026"))
        #expect(!SRP.isWellFormed(timestamp: "2025-11-05T07:03:09Z"))
    }
}
