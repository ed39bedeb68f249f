import Foundation
import InkraAuth
import InkraJSON
import InkraTime
import Testing

@Suite("Token verification (docs/functions.md)")
struct TokenVerifierTests {
    @Test("A valid access token is accepted, with or without its Bearer prefix")
    func accepts() async throws {
        let token = try testSigner.sign(payload: validClaims())
        for form in [token, "Bearer \(token)", "bearer \(token)", "BEARER  \(token)"] {
            let claims = try await verifier().verify(form)
            #expect(claims.subject == "user-1")
            // An email Cognito never verified names nobody (it could be anyone's address).
            #expect(claims.email == nil)
            #expect(claims.tier == .free)
        }
    }

    @Test(
        "The email is kept only when email_verified says Cognito verified it",
        arguments: [
            (JSONValue.bool(true), "u@example.com"), (.string("true"), "u@example.com"), (.bool(false), nil),
            (.string("false"), nil), (.null, nil),
        ] as [(JSONValue, String?)])
    func verifiedEmail(verified: JSONValue, kept: String?) async throws {
        let token = try testSigner.sign(payload: validClaims { $0["email_verified"] = verified })
        #expect(try await verifier().verify(token).email == kept)
    }

    @Test("ID tokens are checked against aud; any accepts both kinds")
    func idTokens() async throws {
        let id = try testSigner.sign(
            payload: validClaims {
                $0["token_use"] = "id"
                $0["client_id"] = nil
                $0["aud"] = "client-a"
            })
        _ = try await verifier(tokenUse: .id).verify(id)
        _ = try await verifier(tokenUse: .any).verify(id)
        await #expect(throws: AuthError.self) { try await verifier(tokenUse: .access).verify(id) }
        let otherAudience = try testSigner.sign(
            payload: validClaims {
                $0["token_use"] = "id"
                $0["aud"] = ["someone-else"]
            })
        await #expect { try await verifier(tokenUse: .id).verify(otherAudience) } throws: {
            ($0 as? AuthError)?.code == .wrongAudience
        }
        _ = try await verifier(clientIds: [], tokenUse: .id).verify(otherAudience)
    }

    static let rejections: [(String, AuthError.Code, @Sendable (inout JSONObject) -> Void)] = [
        ("wrong issuer", .wrongIssuer, { $0["iss"] = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Other" }),
        ("wrong token_use", .wrongTokenUse, { $0["token_use"] = "id" }),
        ("wrong client", .wrongAudience, { $0["client_id"] = "client-b" }),
        ("expired", .expired, { $0["exp"] = .number(Int(now.timeIntervalSince1970)) }),
        ("no exp", .missingExpiry, { $0["exp"] = nil }),
        ("nbf in the future", .notYetValid, { $0["nbf"] = .number(Int(now.timeIntervalSince1970) + 30) }),
        ("iat in the future", .issuedInFuture, { $0["iat"] = .number(Int(now.timeIntervalSince1970) + 30) }),
        ("empty sub", .missingSubject, { $0["sub"] = "" }),
        ("no sub", .missingSubject, { $0["sub"] = nil }),
        ("sub not a string", .missingSubject, { $0["sub"] = 42 }),
    ]

    @Test("Each claim rule refuses with its reason", arguments: rejections.indices)
    func claimRules(index: Int) async throws {
        let (name, code, change) = Self.rejections[index]
        let token = try testSigner.sign(payload: validClaims(change))
        await #expect {
            try await verifier().verify(token)
        } throws: { error in
            (error as? AuthError)?.code == code
        }
        _ = name
    }

    @Test("The clock tolerance applies to exp, nbf and iat")
    func tolerance() async throws {
        let late = try testSigner.sign(payload: validClaims { $0["exp"] = .number(Int(now.timeIntervalSince1970) - 5) })
        let early = try testSigner.sign(
            payload: validClaims { $0["nbf"] = .number(Int(now.timeIntervalSince1970) + 5) })
        _ = try await verifier(tolerance: 10).verify(late)
        _ = try await verifier(tolerance: 10).verify(early)
        await #expect(throws: AuthError.self) { try await verifier(tolerance: 1).verify(late) }
    }

    @Test("Forgeries fail: tampered payload, another key, alg none, HS256 with the public key, unknown kid")
    func forgeries() async throws {
        let token = try testSigner.sign(payload: validClaims())
        let parts = token.split(separator: ".").map(String.init)
        let tampered = "\(parts[0]).\(b64url(Array(validClaims { $0["sub"] = "admin" }.jsonString.utf8))).\(parts[2])"
        let cases: [(String, AuthError.Code)] = [
            (tampered, .badSignature),
            (try impostor.sign(payload: validClaims()), .badSignature),
            (craft(header: #"{"alg":"none","kid":"key-1"}"#, payload: validClaims().jsonString), .unsupportedAlgorithm),
            (hmacToken(secret: Data(testSigner.jwks), payload: validClaims()), .unsupportedAlgorithm),
            (try testSigner.sign(payload: validClaims(), header: ["kid": "other"]), .unknownKey),
            (craft(header: #"{"alg":"RS256"}"#, payload: validClaims().jsonString), .unknownKey),
            (craft(header: #"{"alg":"RS256","kid":""}"#, payload: validClaims().jsonString), .unknownKey),
            ("\(parts[0]).\(parts[1]).", .malformed),
        ]
        for (candidate, code) in cases {
            await #expect {
                try await verifier().verify(candidate)
            } throws: { error in
                (error as? AuthError)?.code == code
            }
        }
    }

    @Test(
        "Malformed shapes are refused with a message that names the part",
        arguments: [
            ("e30.e30", "token has 2 parts, not 3"), ("e30.e30.c2ln.c2ln", "token has 4 parts, not 3"),
            ("e30", "token has 1 parts, not 3"), (".e30.c2ln", "token header is empty"),
            ("e30..c2ln", "token payload is empty"), ("e30.e30.", "token signature is empty"),
            ("e3+.e30.c2ln", "token header has characters outside base64url"),
            ("e30.e30=.c2ln", "token payload has characters outside base64url"),
            ("e30.e30.c2\u{E9}", "token signature has characters outside base64url"),
        ])
    func malformedShapes(token: String, message: String) async throws {
        await #expect {
            try await verifier().verify("Bearer \(token)")
        } throws: { error in
            (error as? AuthError)?.code == .malformed && (error as? AuthError)?.message == message
        }
    }

    @Test("A truncated signature is refused")
    func truncated() async throws {
        let parts = try testSigner.sign(payload: validClaims()).split(separator: ".")
        for cut in [1, 2, 4, 10, 100] {
            await #expect(throws: AuthError.self) {
                try await verifier().verify("\(parts[0]).\(parts[1]).\(parts[2].dropLast(cut))")
            }
        }
    }

    @Test(
        "Garbage is malformed or oversized, never a crash",
        arguments: [
            "", "garbage", "a.b", "a.b.c.d", "a..c", "!!!.???.***", "e30.e30.e30", "W10.e30.c2ln", "e30.W10.c2ln",
            "eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.c2ln", "a b.c d.e f", "é.é.é",
        ]
    )
    func garbage(token: String) async throws {
        await #expect(throws: AuthError.self) { try await verifier().verify(token) }
    }

    @Test("Tokens over 8 KiB are refused before any key lookup")
    func oversized() async throws {
        let big = try testSigner.sign(
            payload: validClaims { $0["padding"] = .string(String(repeating: "x", count: 9_000)) })
        await #expect { try await verifier().verify(big) } throws: { ($0 as? AuthError)?.code == .oversized }
    }

    @Test("Duplicate keys in the header or payload are refused")
    func duplicateKeys() async throws {
        let token = craft(header: #"{"alg":"RS256","kid":"key-1","kid":"key-2"}"#, payload: validClaims().jsonString)
        await #expect { try await verifier().verify(token) } throws: { ($0 as? AuthError)?.code == .malformed }
    }

    @Test("A JWKS key whose alg differs from the header's is not used")
    func algorithmMismatch() async throws {
        var document = try JSONParser.parse(Array(testSigner.jwks))
        document.set([document["keys"]!.array![0].setting("RS512", at: ["alg"])], at: ["keys"])
        let keys = try JWKSKeySource(jwks: Array(document.jsonString.utf8))
        let token = try testSigner.sign(payload: validClaims())
        await #expect {
            try await verifier(keys: keys).verify(token)
        } throws: { ($0 as? AuthError)?.code == .unsupportedAlgorithm }
    }

    @Test("A JWKS with only a symmetric key verifies nothing")
    func symmetricKey() async throws {
        let keys = try JWKSKeySource(
            jwks: Array(#"{"keys":[{"kty":"oct","kid":"key-1","k":"c2VjcmV0","alg":"HS256"}]}"#.utf8))
        #expect(keys.keyIDs.isEmpty)
        let token = hmacToken(secret: Data("secret".utf8), payload: validClaims())
        await #expect(throws: AuthError.self) { try await verifier(keys: keys).verify(token) }
    }
}
