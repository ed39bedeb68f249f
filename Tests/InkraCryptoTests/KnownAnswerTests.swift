import InkraCrypto
import Testing

/// Bytes from hexadecimal digits.
func bytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
}

/// Lowercase hexadecimal.
func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
}

@Suite("InkraCrypto: known answers")
struct KnownAnswerTests {
    @Test("SHA-256, SHA-384 and SHA-512 of \"abc\" (FIPS 180-2, appendix B, C and D)")
    func sha2() {
        let abc = Array("abc".utf8)
        #expect(hex(SHA2.sha256.hash(abc)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hex(SHA2.sha384.hash(abc))
                == "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7")
        #expect(
            hex(SHA2.sha512.hash(abc))
                == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
        #expect(SHA2.allCases.map { $0.hash(abc).count } == SHA2.allCases.map(\.byteCount))
    }

    @Test("SHA-256 of nothing")
    func sha256OfNothing() {
        #expect(hex(SHA2.sha256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("HMAC-SHA256: RFC 4231, test case 2")
    func hmac() {
        let code = HMACSHA256.authenticationCode(for: "what do ya want for nothing?".utf8, key: "Jefe".utf8)
        #expect(hex(code) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("HKDF-SHA256: RFC 5869, test case 1")
    func hkdf() {
        let key = HKDFSHA256.deriveKey(
            inputKeyMaterial: [UInt8](repeating: 0x0b, count: 22), salt: bytes("000102030405060708090a0b0c"),
            info: bytes("f0f1f2f3f4f5f6f7f8f9"), outputByteCount: 42)
        #expect(
            hex(key)
                == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    @Test("AES-256-GCM: a sealed box opens under its key, with a fresh nonce each time")
    func roundTrip() throws {
        let key = [UInt8](repeating: 7, count: 32)
        for plain in [[], Array("200 {\"questions\":[]}".utf8), [UInt8](repeating: 0xA5, count: 1000)] {
            let box = try AES256GCM.seal(plain, key: key)
            #expect(box.count == 12 + plain.count + 16)
            #expect(AES256GCM.open(box, key: key) == plain)
            #expect(try AES256GCM.seal(plain, key: key).prefix(12) != box.prefix(12))
        }
    }

    @Test("AES-256-GCM: an altered, short or foreign box is refused, and a key of the wrong size too")
    func refusals() throws {
        let key = [UInt8](repeating: 7, count: 32)
        let box = try AES256GCM.seal(Array("200 the answer".utf8), key: key)
        for index in [0, 11, 12, box.count - 17, box.count - 16, box.count - 1] {
            var altered = box
            altered[index] ^= 0x01
            #expect(AES256GCM.open(altered, key: key) == nil, "a bit flipped at \(index)")
        }
        #expect(AES256GCM.open(box.dropLast(), key: key) == nil)
        #expect(AES256GCM.open(box + [0], key: key) == nil)
        #expect(AES256GCM.open(box.prefix(27), key: key) == nil)
        #expect(AES256GCM.open([], key: key) == nil)
        #expect(AES256GCM.open(box, key: [UInt8](repeating: 8, count: 32)) == nil)
        #expect(AES256GCM.open(box, key: [UInt8](repeating: 7, count: 16)) == nil)
        #expect(throws: AES256GCM.Failure.wrongKeySize) {
            try AES256GCM.seal([1], key: [UInt8](repeating: 7, count: 31))
        }
        #expect(throws: AES256GCM.Failure.wrongKeySize) { try AES256GCM.seal([1], key: []) }
    }

    @Test("Malformed RSA and P-256 keys are refused, not trapped on")
    func malformedKeys() {
        #expect(throws: RSAPublicKey.Failure.invalidKey) { try RSAPublicKey(modulus: [], exponent: [1, 0, 1]) }
        // An even modulus.
        #expect(throws: RSAPublicKey.Failure.invalidKey) {
            try RSAPublicKey(modulus: [0xC0] + [UInt8](repeating: 0, count: 255), exponent: [1, 0, 1])
        }
        #expect(throws: RSAPublicKey.Failure.invalidKey) {
            try RSAPublicKey(modulus: [0xC0] + [UInt8](repeating: 1, count: 255), exponent: [])
        }
        #expect(throws: RSAPublicKey.Failure.tooSmall(bits: 1024)) {
            try RSAPublicKey(modulus: [0xC0] + [UInt8](repeating: 1, count: 127), exponent: [1, 0, 1])
        }
        #expect(throws: P256PublicKey.Failure.notOnCurve) {
            try P256PublicKey(x: [UInt8](repeating: 1, count: 32), y: [UInt8](repeating: 2, count: 32))
        }
        #expect(throws: P256PublicKey.Failure.notOnCurve) { try P256PublicKey(x: [1], y: [2]) }
        #expect(throws: P256PublicKey.Failure.notOnCurve) {
            try P256PublicKey(x: [UInt8](repeating: 0, count: 32), y: [UInt8](repeating: 0, count: 32))
        }
        #expect(throws: RSAPrivateKey.Failure.invalidKey) { try RSAPrivateKey(pem: "") }
        #expect(throws: RSAPrivateKey.Failure.invalidKey) {
            try RSAPrivateKey(pem: "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n")
        }
        #expect(throws: RSAPrivateKey.Failure.unsupportedSize(bits: 1024)) { try RSAPrivateKey.generate(bits: 1024) }
    }

    @Test("RSA: a modulus of 2,052 bits signs in 257 bytes, and such a signature verifies (Python's cryptography)")
    func modulusNotWholeBytes() throws {
        let modulus = bytes(
            "0c9c526df897702011d68f7dce670f24dbf2f0cb644c8c04f946cd0369a9b25620231b1cf87bd5e30c5d45c0954289d0"
                + "a63a670a24971cac15c3ae4c1956763d1aa5d3a4d916f4bd5e508af60b56f7c7870d7155f002f6d0e89a8f6726fec500"
                + "54d78f16ac9a2944b7a7b5b5db62bca4d4438bdab33b2727dcdf15938a5b970fd67c8bbaf48ca4407994eb321f2d078a"
                + "583d9984f39b51347437b7e0d3a03add12275e80daa91c98152bff86512d1c9dae1999421522cfce7a0c08c8cf28a422"
                + "32b78ac9823a1a6fc2b447aaa894da9a2807db4c2f8fe36441ad8efb94eb45639a6e4147bfad775c7cdbe358d3fe6a73"
                + "ec3ecd01a4c3e8bcb2adf7ae9bae524895")
        let signature = bytes(
            "0086d6b9f48df29b20f51a03990af38c6ad8e984376f418870e69859b9327048bcce9726803c2927ca556aef50810a47"
                + "e3c2034d69d851d8077d40f6bcf6e39642f30a869239a7bc162628424f26e739021f2fe98a92f19af1c3abb0d69c459e"
                + "5c7b940f44c02c159a67c8b94d67aa30dcd185fcf8845e13b2b4e6c6d4b0b40e47d25187625ab8a358f0c8b2ab669808"
                + "17c240e83f24aac183ee8ec3c92c8f60a3ecb1f9fe90346589c0bebb40b2bc96ce27ebc34fe8025e6533dc7675f6dbaf"
                + "e46e5661decfd3ecea96a8a7c5dbb337ece3cc5148fa249107cf4eacae35a9be064d6b3705b44cb556e7443c2cd39d5c"
                + "9d82bc220a544022b6d42f17bf4ad3744c")
        let key = try RSAPublicKey(modulus: modulus, exponent: [0x01, 0x00, 0x01])
        #expect(key.bitCount == 2052)
        #expect(key.isValidSignature(signature, for: "inkra".utf8, hash: .sha256))
        #expect(!key.isValidSignature(signature, for: "inkrA".utf8, hash: .sha256))
        #expect(!key.isValidSignature(signature.dropLast(), for: "inkra".utf8, hash: .sha256))
    }
}
