import Foundation
import InkraAuth
import InkraJSON
import InkraTime
import Testing

/// What a pool's configuration holds when nothing more is said: the clock tolerance on a token's
/// times, and the issuer in the region's partition.
@Suite("Cognito configuration defaults")
struct ConfigurationDefaultsTests {
    static func verifier(_ configuration: CognitoConfiguration) throws -> TokenVerifier {
        TokenVerifier(configuration: configuration, keys: try JWKSKeySource(jwks: testSigner.jwks), now: { now })
    }

    @Test("By default a few seconds of skew pass (exp 3 s ago, iat 3 s ahead); 10 s do not")
    func defaultTolerance() async throws {
        let configuration = CognitoConfiguration(issuer: issuer, clientIds: ["client-a"], tokenUse: .access)
        #expect(configuration.clockTolerance == 5)
        let seconds = Int(now.timeIntervalSince1970)
        for change: (inout JSONObject) -> Void in [
            { $0["exp"] = .number(seconds - 3) }, { $0["iat"] = .number(seconds + 3) },
            { $0["nbf"] = .number(seconds + 3) },
        ] {
            _ = try await Self.verifier(configuration).verify(try testSigner.sign(payload: validClaims(change)))
        }
        for change: (inout JSONObject) -> Void in [
            { $0["exp"] = .number(seconds - 10) }, { $0["iat"] = .number(seconds + 10) },
            { $0["nbf"] = .number(seconds + 10) },
        ] {
            await #expect(throws: AuthError.self) {
                try await Self.verifier(configuration).verify(try testSigner.sign(payload: validClaims(change)))
            }
        }
    }

    /// "Endpoints and ARNs for Amazon Web Services in China"
    /// (https://docs.amazonaws.cn/en_us/general/latest/gr/rande.html): the China Regions' endpoints
    /// end in `amazonaws.com.cn`, Cognito's issuer with them.
    @Test("A pool in China: its issuer ends in amazonaws.com.cn, and is known as Cognito's")
    func chinaIssuer() {
        let configuration = CognitoConfiguration(region: "cn-north-1", userPoolId: "cn-north-1_AbCdEf123")
        #expect(configuration.issuer == "https://cognito-idp.cn-north-1.amazonaws.com.cn/cn-north-1_AbCdEf123")
        #expect(configuration.region == "cn-north-1")
        #expect(IssuerForm(issuer: configuration.issuer) == .original)
        #expect(
            IssuerForm.updated.issuer(region: "cn-north-1", userPoolId: "p")
                == "https://issuer-cognito-idp.cn-north-1.amazonaws.com.cn/p")
        #expect(IssuerForm(issuer: "https://cognito-idp.cn-north-1.example.com/p") == nil)
    }
}
