import Testing

@testable import InkraUsage

/// What the development secret keys, computed apart from this package (Python's hmac and
/// `cryptography`), so that a change of the code under the seal and the pseudonyms (swift-crypto
/// for InkraCrypto, issue #51) cannot change a byte of what tables already hold.
@Suite("ServerSecret and IdempotencySeal: the same bytes as before")
struct SealContinuityTests {
    @Test("The development secret's pseudonyms")
    func pseudonyms() {
        let secret = ServerSecret.development
        #expect(secret.userKey("user-1") == "6936156a86b8052538f1f317b7dd8314")
        #expect(secret.emailKey(" Ada@Example.com ") == "30de431d623f37301f38dac8b0e35e8f")
        #expect(secret.pseudonym(of: "abc", purpose: "recording") == "bafa261dc8732c998499006b0f2068c0")
    }

    @Test("An idempotency record's id and fingerprint, and an answer sealed elsewhere opens")
    func seal() throws {
        let seal = IdempotencySeal(key: "k-1", userID: "user-1", secret: .development)
        #expect(seal.recordID == "40f57f322f12d94de3aa4d09804b45d9c5c049ddbd745163627cab6754360a2b")
        #expect(
            seal.fingerprint(of: Array(#"{"topic":"x"}"#.utf8))
                == "e9552470b1b2b1afc9be22340a51af0549e0a282ace38fd2e7263ce9a76eede0")
        let sealed = "AAECAwQFBgcICQoLMr56jNfx8L0DlNJp9f90oDZfpDKH6n3156g8m+KmX0qBinxOFblX"
        #expect(seal.open(sealed) == StoredResponse(statusCode: 200, body: #"{"questions":["q"]}"#))
        let answer = StoredResponse(statusCode: 201, body: "é")
        #expect(seal.open(try seal.seal(answer)) == answer)
        #expect(IdempotencySeal(key: "k-2", userID: "user-1", secret: .development).open(sealed) == nil)
        #expect(seal.open("AAEC") == nil)
        #expect(seal.open("not base64") == nil)
    }
}
