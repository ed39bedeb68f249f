import Crypto
import CryptoExtras
import Foundation
import HTTPText
import InkraAuth
import InkraJSON
import InkraTesting
import InkraTime
import Testing

/// A JWKS served to `RemoteKeySource` by a counting stub.
final class StubEndpoint: @unchecked Sendable {
    private let lock = NSLock()
    private var document: [UInt8]
    private var fetches = 0
    var failing = false

    init(_ document: [UInt8]) { self.document = document }

    var count: Int { lock.withLock { fetches } }
    func replace(_ data: [UInt8]) { lock.withLock { document = data } }

    func fetch(_ url: HTTPURL) async throws -> [UInt8] {
        try lock.withLock {
            fetches += 1
            if failing { throw URLError(.cannotConnectToHost) }
            return document
        }
    }
}

@Suite("Key sources and the refetch penalty")
struct KeySourceTests {
    @Test("Keys are fetched once and cached")
    func cached() async throws {
        let endpoint = StubEndpoint(testSigner.jwks)
        let source = RemoteKeySource(
            url: HTTPURL(string: "https://example.com/jwks.json")!, fetch: endpoint.fetch, now: { now })
        let verifier = try verifier(keys: source)
        let token = try testSigner.sign(payload: validClaims())
        for _ in 0..<5 { _ = try await verifier.verify(token) }
        #expect(endpoint.count == 1)
    }

    @Test("An unknown kid refetches once, then a flood of unknown kids fetches nothing for 10 seconds")
    func penalty() async throws {
        let endpoint = StubEndpoint(testSigner.jwks)
        let clock = ManualClock(now)
        let source = RemoteKeySource(
            url: HTTPURL(string: "https://example.com/jwks.json")!, fetch: endpoint.fetch, now: { clock.now })
        #expect(try await source.key(withID: "key-1") != nil)
        #expect(endpoint.count == 1)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                group.addTask { _ = try? await source.key(withID: "forged-\(index)") }
            }
        }
        #expect(endpoint.count == 2)
        clock.set(now.addingTimeInterval(9))
        #expect(try await source.key(withID: "forged-x") == nil)
        #expect(endpoint.count == 2)
        clock.set(now.addingTimeInterval(11))
        #expect(try await source.key(withID: "forged-y") == nil)
        #expect(endpoint.count == 3)
        #expect(await source.fetchCount == 3)
    }

    @Test("A rotated-in key is found by the refetch")
    func rotation() async throws {
        let rotated = try TokenSigner.generate(kid: "key-2")
        let endpoint = StubEndpoint(testSigner.jwks)
        let source = RemoteKeySource(
            url: HTTPURL(string: "https://example.com/jwks.json")!, fetch: endpoint.fetch, now: { now })
        _ = try await verifier(keys: source).verify(try testSigner.sign(payload: validClaims()))
        endpoint.replace(rotated.jwks)
        let claims = try await verifier(keys: source).verify(try rotated.sign(payload: validClaims()))
        #expect(claims.subject == "user-1")
        #expect(endpoint.count == 2)
    }

    @Test("A failed fetch leaves the token unchecked (keysUnavailable, a key-source failure), naming the URL")
    func fetchFailure() async throws {
        let endpoint = StubEndpoint(testSigner.jwks)
        endpoint.failing = true
        let source = RemoteKeySource(
            url: HTTPURL(string: "https://example.com/jwks.json")!, fetch: endpoint.fetch, now: { now })
        await #expect {
            try await verifier(keys: source).verify(try testSigner.sign(payload: validClaims()))
        } throws: {
            let error = $0 as? AuthError
            return error?.code == .keysUnavailable && error?.isKeySourceFailure == true
                && error?.message.contains("https://example.com/jwks.json") == true
        }
    }

    @Test("A JWKS file that is missing or not a JWKS is named in the error")
    func badFiles() throws {
        #expect { try JWKSKeySource(contentsOfFile: "/nonexistent/jwks.json") } throws: {
            "\($0)".contains("/nonexistent/jwks.json")
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-jwks-\(UUID().uuidString).json")
        try Data(#"{"nope":[]}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect { try JWKSKeySource(contentsOfFile: file.path) } throws: {
            "\($0)".contains(file.path) && "\($0)".contains("keys")
        }
    }

    @Test("ES256 tokens verify against an EC P-256 JWK")
    func ecdsa() async throws {
        let key = P256.Signing.PrivateKey()
        let raw = key.publicKey.rawRepresentation
        let jwk: JSONValue = [
            "kty": "EC", "crv": "P-256", "kid": "ec-1", "alg": "ES256", "use": "sig",
            "x": .string(b64url(raw.prefix(32))), "y": .string(b64url(raw.suffix(32))),
        ]
        let keys = try JWKSKeySource(jwks: Array(JSONValue.object(["keys": [jwk]]).jsonString.utf8))
        let input =
            "\(b64url(Array(#"{"alg":"ES256","kid":"ec-1"}"#.utf8))).\(b64url(Array(validClaims().jsonString.utf8)))"
        let signature = try key.signature(for: Data(input.utf8))
        let token = "\(input).\(b64url(signature.rawRepresentation))"
        #expect(try await verifier(keys: keys).verify(token).subject == "user-1")
        let confused =
            "\(b64url(Array(#"{"alg":"RS256","kid":"ec-1"}"#.utf8))).\(input.split(separator: ".")[1]).\(b64url(signature.rawRepresentation))"
        await #expect(throws: AuthError.self) { try await verifier(keys: keys).verify(confused) }
        // A DER-encoded signature (what some libraries emit) is not JWS's R‖S and never verifies.
        let der = "\(input).\(b64url(signature.derRepresentation))"
        await #expect { try await verifier(keys: keys).verify(der) } throws: {
            ($0 as? AuthError)?.code == .badSignature
        }
    }

    @Test("RS384 and RS512 tokens verify against an RSA JWK; the same signature under another alg does not")
    func rsaDigests() async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let primitives = try key.publicKey.getKeyPrimitives()
        let jwk: JSONValue = [
            "kty": "RSA", "kid": "rsa-2", "use": "sig",
            "n": .string(b64url(primitives.modulus)), "e": .string(b64url(primitives.publicExponent)),
        ]
        let keys = try JWKSKeySource(jwks: Array(JSONValue.object(["keys": [jwk]]).jsonString.utf8))
        let payload = b64url(Array(validClaims().jsonString.utf8))
        for alg in ["RS384", "RS512"] {
            let input = "\(b64url(Array(#"{"alg":"\#(alg)","kid":"rsa-2"}"#.utf8))).\(payload)"
            let signature =
                alg == "RS384"
                ? try key.signature(for: SHA384.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
                : try key.signature(for: SHA512.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
            let token = "\(input).\(b64url(signature.rawRepresentation))"
            #expect(try await verifier(keys: keys).verify(token).subject == "user-1")
            let other = alg == "RS384" ? "RS512" : "RS384"
            let swapped =
                "\(b64url(Array(#"{"alg":"\#(other)","kid":"rsa-2"}"#.utf8))).\(payload).\(b64url(signature.rawRepresentation))"
            await #expect { try await verifier(keys: keys).verify(swapped) } throws: {
                ($0 as? AuthError)?.code == .badSignature
            }
        }
    }

    @Test("An RSA JWK under 2048 bits is refused, and a token naming it is bad (unusableKey), not unchecked")
    func shortRSAKey() async throws {
        let key = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024))
        let primitives = try key.publicKey.getKeyPrimitives()
        let jwk: JSONValue = [
            "kty": "RSA", "kid": "weak", "alg": "RS256",
            "n": .string(b64url(primitives.modulus)), "e": .string(b64url(primitives.publicExponent)),
        ]
        let keys = try JWKSKeySource(jwks: Array(JSONValue.object(["keys": [jwk]]).jsonString.utf8))
        let input =
            "\(b64url(Array(#"{"alg":"RS256","kid":"weak"}"#.utf8))).\(b64url(Array(validClaims().jsonString.utf8)))"
        let signature = try key.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
        let token = "\(input).\(b64url(signature.rawRepresentation))"
        await #expect { try await verifier(keys: keys).verify(token) } throws: {
            ($0 as? AuthError)?.code == .unusableKey && ($0 as? AuthError)?.isKeySourceFailure == false
                && "\($0)".contains("2048")
        }
    }
}

@Suite("Tiers and quotas (docs/limits.md)")
struct TierTests {
    @Test(
        "Tier resolution order",
        arguments: [
            ("premium", nil, [], Tier.premium), (nil, "premium", [], .premium),
            ("free", "premium", ["premium_tier"], .free),
            (nil, nil, ["premium_tier"], .premium), (nil, nil, ["free_tier"], .free),
            ("gold", nil, ["premium_tier"], .free),
            ("PREMIUM", nil, [], .premium), (nil, nil, [], .free),
            // The plan's groups, which access tokens carry too: premium_tier beats free_tier.
            (nil, nil, ["free_tier"], .free), (nil, nil, ["free_tier", "premium_tier"], .premium),
            (nil, nil, ["premium_tier", "free_tier"], .premium), (nil, nil, ["blocked", "premium_tier"], .premium),
            (nil, nil, ["Premium_Tier"], .free),
            // The attribute, when present, decides over the groups.
            ("premium", nil, ["free_tier"], .premium), ("free", nil, ["premium_tier", "free_tier"], .free),
        ] as [(String?, String?, [String], Tier)]
    )
    func resolution(subscription: String?, tier: String?, groups: [String], expected: Tier) {
        #expect(Tier.resolve(subscriptionTier: subscription, tier: tier, groups: groups) == expected)
    }

    @Test(
        "Monthly quota claims",
        arguments: [("10", 10), (10, 10), ("0", nil), ("-1", nil), ("x", nil), (.number("2.5"), nil), (true, nil)]
            as [(JSONValue, Int?)]
    )
    func quota(value: JSONValue, expected: Int?) {
        #expect(CognitoClaims.positiveInteger(value) == expected)
    }

    @Test("An access token, which carries no custom attributes, gets its tier from cognito:groups")
    func accessTokenGroups() async throws {
        for (groups, tier) in [(["premium_tier"], Tier.premium), (["free_tier"], .free), ([], .free)] {
            let token = try testSigner.sign(
                payload: validClaims {
                    $0["email"] = nil
                    if !groups.isEmpty { $0["cognito:groups"] = .array(groups.map(JSONValue.string)) }
                })
            #expect(try await verifier(tokenUse: .access).verify(token).tier == tier, "\(groups)")
        }
    }

    @Test("Claims carry tier, groups and quota from the token")
    func fromToken() async throws {
        let token = try testSigner.sign(
            payload: validClaims {
                $0["cognito:groups"] = ["premium_tier", "beta"]
                $0["custom:monthly_quota"] = "40"
            })
        let claims = try await verifier().verify(token)
        #expect(claims.tier == .premium)
        #expect(claims.groups == ["premium_tier", "beta"])
        #expect(claims.monthlyQuota == 40)
    }
}
