import Foundation
import InkraTime
import Testing

@testable import LocalUserPool

/// The client's half of `USER_SRP_AUTH` (`replay endpoint`'s sign-in), against pycognito's
/// known values (scripts/cognito-srp-vectors.py) and against the local pool's server half.
@Suite("SRPClient: the client's half of USER_SRP_AUTH")
struct SRPClientTests {
    static func client() throws -> SRPClient {
        let secret = try #require(BigUInt(hex: KnownValues.clientSecret))
        return SRPClient(poolID: KnownValues.poolID, secret: secret.bytes)
    }

    @Test("A, the session key and PASSWORD_CLAIM_SIGNATURE are pycognito's for the same a, B and salt")
    func knownValues() throws {
        let client = try Self.client()
        #expect(client.clientPublicHex == KnownValues.clientPublic)
        let serverPublic = try #require(BigUInt(hex: KnownValues.serverPublic))
        let salt = try #require(BigUInt(hex: KnownValues.salt))
        let key = try client.sessionKey(
            serverPublic: serverPublic, salt: salt, userID: KnownValues.userID, password: KnownValues.password)
        #expect(key.map { String($0, radix: 16).leftPadded(to: 2) }.joined() == KnownValues.sessionKey)
        let timestamp = try #require(CivilTime.instant(iso8601: "2025-11-05T07:03:09Z"))
        let responses = try client.responses(
            to: [
                "SALT": KnownValues.salt, "SRP_B": KnownValues.serverPublic, "USER_ID_FOR_SRP": KnownValues.userID,
                "SECRET_BLOCK": Data(Array(0..<64)).base64EncodedString(),
            ], password: KnownValues.password, at: timestamp)
        #expect(responses["TIMESTAMP"] == KnownValues.timestamp)
        #expect(responses["PASSWORD_CLAIM_SIGNATURE"] == KnownValues.signature)
        #expect(responses["USERNAME"] == KnownValues.userID)
    }

    @Test("A challenge without SRP_B, or with B ≡ 0 mod N, is refused naming the parameter")
    func badChallenges() throws {
        let client = try Self.client()
        let good = [
            "SALT": KnownValues.salt, "SRP_B": KnownValues.serverPublic, "USER_ID_FOR_SRP": KnownValues.userID,
            "SECRET_BLOCK": "AAAA",
        ]
        var missing = good
        missing["SRP_B"] = nil
        #expect(throws: SRPClientError("the PASSWORD_VERIFIER challenge has no SRP_B")) {
            try client.responses(to: missing, password: "p", at: Timestamp(timeIntervalSince1970: 0))
        }
        var zero = good
        zero["SRP_B"] = SRP.prime.hex
        #expect(throws: SRPClientError("the challenge's SRP_B is 0 mod N")) {
            try client.responses(to: zero, password: "p", at: Timestamp(timeIntervalSince1970: 0))
        }
        var notBase64 = good
        notBase64["SECRET_BLOCK"] = "*not base64*"
        #expect(throws: SRPClientError("the challenge's SECRET_BLOCK is not base64")) {
            try client.responses(to: notBase64, password: "p", at: Timestamp(timeIntervalSince1970: 0))
        }
    }

    @Test("The client and the server half agree on the key for the right password, not for a wrong one")
    func agreesWithServer() throws {
        var generator = SystemRandomNumberGenerator()
        let client = SRPClient(poolID: KnownValues.poolID, using: &generator)
        let salt = try #require(BigUInt(hex: KnownValues.salt))
        let verifier = SRP.verifier(
            salt: salt, poolName: "InkraLocal", userID: KnownValues.userID, password: KnownValues.password)
        let b = try #require(BigUInt(hex: KnownValues.serverSecret))
        let serverPublic = SRP.serverPublic(verifier: verifier, secret: b)
        let clientPublic = try #require(BigUInt(hex: client.clientPublicHex))
        let serverKey = SRP.sessionKey(
            clientPublic: clientPublic, serverPublic: serverPublic, secret: b, verifier: verifier)
        let clientKey = try client.sessionKey(
            serverPublic: serverPublic, salt: salt, userID: KnownValues.userID, password: KnownValues.password)
        #expect(serverKey == clientKey)
        let wrongKey = try client.sessionKey(
            serverPublic: serverPublic, salt: salt, userID: KnownValues.userID, password: "Wrong-Horse-9battery")
        #expect(serverKey != wrongKey)
    }
}
