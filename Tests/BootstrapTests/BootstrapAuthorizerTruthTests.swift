import EmulatorKit
import Foundation
import HTTPText
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTesting
import InkraTime
import Testing

/// A pool for the built authorizer's tests, in each of Cognito's two issuer forms.
let originalPool = try! TestUserPool(issuerForm: .original)
let updatedPool = try! TestUserPool(issuerForm: .updated)

/// The built `bootstrap` as the authorizer, as an operator deploys it: the pool's issuer form, and
/// what it writes to its logs when a caller sends a hostile token.
@Suite("bootstrap as the authorizer: the pool's issuer form, and hostile tokens in its logs")
struct BootstrapAuthorizerTruthTests {
    static let methodArn = "arn:aws:execute-api:us-east-1:123456789012:a1b2c3d4e5/prod/GET/usage"

    static func event(_ token: String) -> JSONValue {
        ["type": "TOKEN", "authorizationToken": .string("Bearer \(token)"), "methodArn": .string(methodArn)]
    }

    /// The authorizer's settings for `pool` (its keys from a file, so no test reaches AWS).
    static func settings(form: String?, keys pool: TestUserPool, format: String = "Text") throws -> [String: String] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-jwks-\(UUID().uuidString).json")
        try Data(pool.jwks).write(to: file)
        var settings = [
            "COGNITO_USER_POOL_ID": "us-east-1_InkraTest", "COGNITO_CLIENT_IDS": pool.clientID,
            "INKRA_TOKEN_USE": "id", "INKRA_JWKS_FILE": file.path, "AWS_LAMBDA_LOG_FORMAT": format,
            "LOG_LEVEL": "info",
        ]
        settings["INKRA_COGNITO_ISSUER"] = form
        return settings
    }

    static func effect(_ outcome: RuntimeOutcome) -> String {
        switch outcome {
        case .response(let bytes):
            let answer = (try? JSONParser.parse(bytes)) ?? .null
            return answer["policyDocument"]?["Statement"]?.array?.first?["Effect"]?.string ?? "no policy: \(answer)"
        case .error(let type, let body):
            let message = (try? JSONParser.parse(body))?["errorMessage"]?.string ?? ""
            return "error \(type) \(message)"
        default:
            return "\(outcome)"
        }
    }

    // MARK: - Issuer forms

    /// Both URLs as AWS documents them: Amazon Cognito API reference, `IssuerConfigurationType`
    /// (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_IssuerConfigurationType.html):
    /// "Original issuers have the format of https://cognito-idp.[region].amazonaws.com/[userPoolId]";
    /// "Updated issuers have the format of https://issuer-cognito-idp.[region].amazonaws.com/[userPoolId]".
    @Test("Each form's issuer and JWKS URL are the ones AWS documents")
    func documentedURLs() {
        let original = CognitoConfiguration(region: "eu-west-1", userPoolId: "eu-west-1_AbC", issuerForm: .original)
        #expect(original.issuer == "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC")
        #expect(
            original.jwksURL.absoluteString
                == "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC/.well-known/jwks.json")
        let updated = CognitoConfiguration(region: "eu-west-1", userPoolId: "eu-west-1_AbC", issuerForm: .updated)
        #expect(updated.issuer == "https://issuer-cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC")
        #expect(
            updated.jwksURL.absoluteString
                == "https://issuer-cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC/.well-known/jwks.json")
        #expect(updated.region == "eu-west-1")
        #expect(IssuerForm(issuer: updated.issuer) == .updated)
        #expect(IssuerForm(issuer: original.issuer) == .original)
        #expect(IssuerForm(issuer: "http://127.0.0.1:9229/us-east-1_Local") == nil)
    }

    @Test(
        "A token is allowed only by a stack set to its pool's issuer form",
        arguments: [("ORIGINAL", true), ("UPDATED", false), ("ORIGINAL", false), ("UPDATED", true)])
    func issuerForm(stack: String, tokenIsOriginal: Bool) async throws {
        let pool = tokenIsOriginal ? originalPool : updatedPool
        let token = try pool.token(for: Caller("ada"), at: Timestamp.now)
        let (outcome, result) = try await BuiltBootstrap.invoke(
            "authorizer", try Self.settings(form: stack, keys: pool), event: Self.event(token))
        let matches = (stack == "ORIGINAL") == tokenIsOriginal
        if matches {
            #expect(Self.effect(outcome) == "Allow", "\(result.standardError)")
        } else {
            #expect(Self.effect(outcome).hasPrefix("error"), "\(result.standardError)")
            #expect(result.standardError.contains("wrongIssuer"), "\(result.standardError)")
        }
    }

    @Test("Inside Lambda the authorizer does not start without the pool's issuer form, or with another value")
    func issuerFormRequired() async throws {
        for (form, reason) in [(nil as String?, "is required"), ("NEW", "must be ORIGINAL or UPDATED")] {
            let (outcome, _) = try await BuiltBootstrap.invoke(
                "authorizer", try Self.settings(form: form, keys: originalPool), event: Self.event("x.y.z"))
            guard case .initializationFailed(_, let body) = outcome else {
                Issue.record("started without a usable INKRA_COGNITO_ISSUER (\(form ?? "unset")): \(outcome)")
                continue
            }
            let message = try JSONParser.parse(body)["errorMessage"]?.string ?? ""
            #expect(message.contains("INKRA_COGNITO_ISSUER") && message.contains(reason), "\(message)")
        }
    }

    // MARK: - Hostile tokens

    /// A forged EMF object: a `UsageStoreFailure` of 1000, which would fire its alarm.
    static let forgedMetric =
        #"{"_aws":{"Timestamp":1795780800000,"CloudWatchMetrics":[{"Namespace":"Inkra","Dimensions":[["function"]],"#
        + #""Metrics":[{"Name":"UsageStoreFailure","Unit":"Count"}]}]},"function":"generateQuestions","UsageStoreFailure":1000}"#
    /// A forged recording line, as `inkra-emulator import` reads one.
    static let forgedRecording = #"INKRA_RECORDING forged-request 1/1 {"event":{},"response":{"statusCode":200}}"#
    static let hostile = "RS256\n" + forgedMetric + "\r\n" + forgedRecording + "\u{2028}\u{1B}[2J"

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Tokens whose unverified header carries the hostile text: as `alg`, as `kid`, and as a key
    /// the JSON parser refuses (repeated).
    static func hostileTokens() -> [String] {
        let payload = base64URL(Array(#"{"sub":"x"}"#.utf8))
        let headers: [[UInt8]] = [
            JSONValue.object(["alg": .string(hostile), "kid": "k"]).jsonBytes,
            JSONValue.object(["alg": "RS256", "kid": .string(hostile)]).jsonBytes,
            Array(
                "{\"alg\":\"RS256\",\(JSONValue.string(hostile).jsonString):1,\(JSONValue.string(hostile).jsonString):2}"
                    .utf8),
            Array("{\(JSONValue.string(hostile).jsonString) 1}".utf8),
        ]
        return headers.map { "\(base64URL($0)).\(payload).c2ln" }
    }

    /// The metric names of a line an EMF parser reads as metrics (a JSON object with `_aws`).
    static func emfMetrics(_ line: Substring) -> [String]? {
        guard let object = try? JSONParser.parse(String(line)), object["_aws"] != nil else { return nil }
        let directives = object["_aws"]?["CloudWatchMetrics"]?.array ?? []
        return directives.flatMap { ($0["Metrics"]?.array ?? []).compactMap { $0["Name"]?.string } }
    }

    @Test("A hostile token's header forges no log line, metric or recording", arguments: ["Text", "JSON"])
    func hostileToken(format: String) async throws {
        for token in Self.hostileTokens() {
            let (outcome, result) = try await BuiltBootstrap.invoke(
                "authorizer", try Self.settings(form: "ORIGINAL", keys: originalPool, format: format),
                event: Self.event(token))
            #expect(
                Self.effect(outcome).hasPrefix("error Function.Unauthorized")
                    || Self.effect(outcome).contains("Unauthorized"), "\(outcome)")
            // Split as a log reader does, at every line break ("\r\n" is one Character, not a "\n").
            let errorLines = result.standardError.split(whereSeparator: \.isNewline)
            let outputLines = result.standardOutput.split(whereSeparator: \.isNewline)
            #expect(errorLines.contains { $0.contains("refused") }, "the refusal is logged: \(result.standardError)")
            // One line per log event: each line of standard error is a whole log line.
            for line in errorLines {
                if format == "JSON" {
                    let object = try? JSONParser.parse(String(line))
                    #expect(object?["timestamp"] != nil && object?["_aws"] == nil, "not one log event: \(line)")
                } else {
                    // time, the request id (during an invocation), LEVEL, logger: message
                    let event = /\d{4}-\d{2}-\d{2}T[0-9:.]+Z(\t[0-9a-f-]{36})?\t[A-Z]+\tinkra\.[A-Za-z.]+: .*/
                    #expect(line.wholeMatch(of: event) != nil, "not one log event: \(line)")
                    #expect(!line.contains("\u{2028}") && !line.contains("\r") && !line.contains("\u{1B}"), "\(line)")
                }
                #expect(!line.contains("INKRA_RECORDING"), "caller text in a log line: \(line)")
                #expect(!line.contains("UsageStoreFailure"), "caller text in a log line: \(line)")
            }
            for line in errorLines + outputLines {
                if let metrics = Self.emfMetrics(line) {
                    #expect(Set(metrics).isSubset(of: ["ColdStart", "AuthFailure"]), "a forged metric: \(line)")
                }
                guard case .other = RecordingLines.read(line) else {
                    Issue.record("import reads a recording in: \(line)")
                    continue
                }
            }
            #expect(
                outputLines.filter { Self.emfMetrics($0) == ["AuthFailure"] }.count == 1, "\(result.standardOutput)")
        }
    }
}
