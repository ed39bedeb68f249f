import Crypto
import CryptoExtras
import Foundation
import InkraCrypto
import Testing

/// `count` random bytes.
func randomBytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }

/// One RSA-2048 key for every test of the suite: generating one is slow in a debug build.
let sharedRSAKey = Result { try _RSA.Signing.PrivateKey(keySize: .bits2048) }

@Suite("InkraCrypto against swift-crypto")
struct SwiftCryptoCrossTests {
    @Test("SHA-2, HMAC-SHA256 and HKDF-SHA256 give swift-crypto's bytes for random inputs")
    func digests() {
        for _ in 0..<50 {
            let message = randomBytes(Int.random(in: 0...300))
            let key = randomBytes(Int.random(in: 0...100))
            #expect(SHA2.sha256.hash(message) == Array(SHA256.hash(data: message)))
            #expect(SHA2.sha384.hash(message) == Array(SHA384.hash(data: message)))
            #expect(SHA2.sha512.hash(message) == Array(SHA512.hash(data: message)))
            #expect(
                HMACSHA256.authenticationCode(for: message, key: key)
                    == Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))))
            let salt = randomBytes(Int.random(in: 0...40))
            let count = Int.random(in: 1...100)
            let expected = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: key.isEmpty ? [1] : key), salt: salt, info: message,
                outputByteCount: count
            ).withUnsafeBytes { Array($0) }
            #expect(
                HKDFSHA256.deriveKey(
                    inputKeyMaterial: key.isEmpty ? [1] : key, salt: salt, info: message, outputByteCount: count)
                    == expected)
        }
    }

    @Test("A box sealed by swift-crypto's AES.GCM opens here, and one sealed here opens there")
    func aesGCM() throws {
        for _ in 0..<20 {
            let key = randomBytes(32)
            let plain = randomBytes(Int.random(in: 0...500))
            let theirs = try #require(try AES.GCM.seal(plain, using: SymmetricKey(data: key)).combined)
            #expect(AES256GCM.open(theirs, key: key) == plain)
            let ours = try AES256GCM.seal(plain, key: key)
            let opened = try AES.GCM.open(AES.GCM.SealedBox(combined: ours), using: SymmetricKey(data: key))
            #expect(Array(opened) == plain)
        }
    }

    @Test("RSA-2048 PKCS #1 v1.5 signatures by swift-crypto verify, and none with a bit flipped")
    func rsaVerification() throws {
        let key = try sharedRSAKey.get()
        let primitives = try key.publicKey.getKeyPrimitives()
        let publicKey = try RSAPublicKey(modulus: primitives.modulus, exponent: primitives.publicExponent)
        #expect(publicKey.bitCount == 2048)
        let message = randomBytes(200)
        let signatures: [(SHA2, Data)] = [
            (
                .sha256,
                try key.signature(for: SHA256.hash(data: message), padding: .insecurePKCS1v1_5).rawRepresentation
            ),
            (
                .sha384,
                try key.signature(for: SHA384.hash(data: message), padding: .insecurePKCS1v1_5).rawRepresentation
            ),
            (
                .sha512,
                try key.signature(for: SHA512.hash(data: message), padding: .insecurePKCS1v1_5).rawRepresentation
            ),
        ]
        for (hash, signature) in signatures {
            #expect(publicKey.isValidSignature(signature, for: message, hash: hash))
            for bit in [0, 7, 1000, signature.count * 8 - 1] {
                var flipped = Array(signature)
                flipped[bit / 8] ^= UInt8(1 << (bit % 8))
                #expect(!publicKey.isValidSignature(flipped, for: message, hash: hash), "bit \(bit)")
            }
            var otherMessage = message
            otherMessage[0] ^= 1
            #expect(!publicKey.isValidSignature(signature, for: otherMessage, hash: hash))
            #expect(!publicKey.isValidSignature(signature.dropLast(), for: message, hash: hash))
            #expect(!publicKey.isValidSignature(signature + [0], for: message, hash: hash))
            #expect(!publicKey.isValidSignature([], for: message, hash: hash))
        }
        // The digest named in the signature must be the one asked for.
        #expect(!publicKey.isValidSignature(signatures[0].1, for: message, hash: .sha512))
    }

    @Test("An RSA key read from swift-crypto's PEM signs as swift-crypto does, and its signatures verify there")
    func rsaSigning() throws {
        let key = try sharedRSAKey.get()
        let ours = try RSAPrivateKey(pem: key.pemRepresentation)
        let primitives = try key.publicKey.getKeyPrimitives()
        #expect(ours.modulus == Array(primitives.modulus))
        #expect(ours.publicExponent == Array(primitives.publicExponent))
        let message = randomBytes(100)
        let signature = try ours.signature(for: message, hash: .sha256)
        // PKCS #1 v1.5 is deterministic: the same key signs the same bytes.
        let theirs = try key.signature(for: SHA256.hash(data: message), padding: .insecurePKCS1v1_5)
        #expect(signature == Array(theirs.rawRepresentation))
        #expect(
            key.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: message),
                padding: .insecurePKCS1v1_5))
        #expect(try ours.publicKey().isValidSignature(signature, for: message, hash: .sha256))
        // PKCS #8 (`PRIVATE KEY`) reads too, as well as PKCS #1 (`RSA PRIVATE KEY`).
        #expect(key.pkcs8PEMRepresentation.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let pkcs8 = try RSAPrivateKey(pem: key.pkcs8PEMRepresentation)
        #expect(pkcs8.modulus == ours.modulus)
    }

    @Test("A generated RSA key's signatures verify with swift-crypto")
    func rsaGenerated() throws {
        let key = try RSAPrivateKey.generate(bits: 2048)
        #expect(key.bitCount == 2048)
        let message = randomBytes(64)
        let signature = try key.signature(for: message, hash: .sha256)
        let publicKey = try _RSA.Signing.PublicKey(n: key.modulus, e: key.publicExponent)
        #expect(
            publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: message),
                padding: .insecurePKCS1v1_5))
    }

    @Test("An RSA key under 2048 bits is refused")
    func shortRSAKey() throws {
        let key = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024))
        let primitives = try key.publicKey.getKeyPrimitives()
        #expect(throws: RSAPublicKey.Failure.tooSmall(bits: 1024)) {
            try RSAPublicKey(modulus: primitives.modulus, exponent: primitives.publicExponent)
        }
        #expect(throws: RSAPrivateKey.Failure.tooSmall(bits: 1024)) { try RSAPrivateKey(pem: key.pemRepresentation) }
    }

    @Test("A P-256 signature by swift-crypto verifies, and none with a bit flipped")
    func p256() throws {
        for _ in 0..<10 {
            let key = P256.Signing.PrivateKey()
            let raw = Array(key.publicKey.rawRepresentation)
            let publicKey = try P256PublicKey(x: raw[..<32], y: raw[32...])
            let message = randomBytes(Int.random(in: 0...300))
            let signature = Array(try key.signature(for: message).rawRepresentation)
            #expect(publicKey.isValidSignature(signature, for: message))
            for bit in [0, 255, 256, 511] {
                var flipped = signature
                flipped[bit / 8] ^= UInt8(1 << (bit % 8))
                #expect(!publicKey.isValidSignature(flipped, for: message), "bit \(bit)")
            }
            #expect(!publicKey.isValidSignature(signature, for: message + [0]))
            #expect(!publicKey.isValidSignature(signature.dropLast(), for: message))
            #expect(!publicKey.isValidSignature(Array(try key.signature(for: message).derRepresentation), for: message))
            #expect(!publicKey.isValidSignature([UInt8](repeating: 0, count: 64), for: message))
            // Another key's signature does not verify.
            let other = Array(try P256.Signing.PrivateKey().signature(for: message).rawRepresentation)
            #expect(!publicKey.isValidSignature(other, for: message))
            // A point off the curve is refused.
            var offCurve = raw
            offCurve[63] ^= 1
            #expect(throws: P256PublicKey.Failure.notOnCurve) {
                try P256PublicKey(x: offCurve[..<32], y: offCurve[32...])
            }
        }
    }
}
