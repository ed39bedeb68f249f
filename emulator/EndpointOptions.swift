import AWSServices
import ArgumentParser
import EmulatorKit
import Foundation
import HTTPText
import InkraTime

/// `replay endpoint`'s options: the test user's token or how to get one, the storm bound.
struct EndpointOptions: ParsableArguments {
    @Option(help: "The test user's id token, sent in place of every recorded token.")
    var token: String?

    @Option(name: .customLong("token-file"), help: "A file holding the test user's id token.")
    var tokenFile: String?

    @Option(
        help: """
            Sign this user in (USER_SRP_AUTH, as the app) for a token; the password is read \
            from the variable --password-env names, with --user-pool-id and --client-id (the app client).
            """)
    var user: String?

    @Option(
        name: .customLong("password-env"),
        help: "With --user: the environment variable holding the password.")
    var passwordEnv = "INKRA_PASSWORD"

    @Option(
        name: .customLong("cognito-endpoint"),
        help: """
            With --user: the pool's endpoint (default, as the AWS SDKs: AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER, else \
            AWS_ENDPOINT_URL, else https://cognito-idp.REGION.amazonaws.com/, REGION from --region or --user-pool-id).
            """)
    var cognitoEndpoint: String?

    @Option(
        name: .customLong("storm-limit"),
        help: "Stop after this many 5xx answers (or no answer) in a row, exit status 3.")
    var stormLimit = 5

    @Option(
        name: .customLong("endpoint-timeout"),
        help: "Seconds one request may take, --user's sign-in too (API Gateway gives up at 29-30 s).")
    var endpointTimeout: Double = 35

    func validate() throws {
        if [token != nil, tokenFile != nil, user != nil].filter({ $0 }).count > 1 {
            throw ValidationError("give one of --token, --token-file and --user")
        }
        if user == nil, cognitoEndpoint != nil { throw ValidationError("--cognito-endpoint goes with --user") }
        guard stormLimit >= 1 else { throw ValidationError("--storm-limit must be at least 1, not \(stormLimit)") }
        guard endpointTimeout > 0, endpointTimeout.isFinite else {
            throw ValidationError("--endpoint-timeout must be a positive number of seconds")
        }
    }

    /// Checks `--user` against the pool's options (``UserPoolOptions``): `--user-pool-id`, one
    /// `--client-id` (the app client) and `--region`.
    func validate(poolID: String?, clientIDs: [String], region: String?) throws {
        guard user != nil else { return }
        guard let poolID, clientIDs.count == 1 else {
            throw ValidationError(
                "--user needs --user-pool-id and one --client-id (the stack's UserPoolId and UserPoolClientId outputs)")
        }
        if cognitoEndpoint == nil, region == nil, CognitoSignIn.endpoint(forPoolID: poolID) == nil {
            throw ValidationError(
                "--user-pool-id must look like REGION_NAME (us-east-1_AbCdEf123), or give --region or --cognito-endpoint"
            )
        }
    }

    /// The test user's token: given, read from a file, or from a sign-in; `nil` when none was asked for.
    func resolveToken(poolID: String?, clientID: String?, region: String?) async throws -> String? {
        if let token { return token }
        if let tokenFile {
            let text: String
            do {
                text = try String(contentsOfFile: tokenFile, encoding: .utf8)
            } catch {
                throw EmulatorError("--token-file \(tokenFile) cannot be read: \(error.localizedDescription)")
            }
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty else { throw EmulatorError("--token-file \(tokenFile) is empty") }
            return token
        }
        guard let user, let poolID, let clientID else { return nil }
        guard let password = ProcessInfo.processInfo.environment[passwordEnv], !password.isEmpty else {
            throw EmulatorError("--user signs in with the password in $\(passwordEnv), which is not set")
        }
        // As the AWS SDKs resolve it: the flag, the service's variable, AWS_ENDPOINT_URL, the region's.
        let aws: AWSSettings
        do {
            aws = try AWSSettings(environment: ProcessInfo.processInfo.environment)
        } catch {
            throw EmulatorError(error.message)
        }
        let endpoint: HTTPURL
        if let cognitoEndpoint {
            guard let url = HTTPURL(string: cognitoEndpoint) else {
                throw EmulatorError("--cognito-endpoint \(cognitoEndpoint) is not a URL")
            }
            endpoint = url
        } else if let url = aws.serviceEndpoints[.cognitoIdentityProvider] ?? aws.endpoint {
            endpoint = url
        } else if let region, let url = HTTPURL(string: "https://cognito-idp.\(region).amazonaws.com/") {
            endpoint = url
        } else if let url = CognitoSignIn.endpoint(forPoolID: poolID) {
            endpoint = url
        } else {
            throw EmulatorError("--user-pool-id \(poolID) names no region; give --region")
        }
        do {
            var signIn = CognitoSignIn(endpoint: endpoint, poolID: poolID, clientID: clientID, now: { Timestamp.now })
            signIn.timeout = .milliseconds(Int64(endpointTimeout * 1000))
            return try await signIn.idToken(username: user, password: password)
        } catch {
            throw EmulatorError("cannot sign the --user in: \(error.message)")
        }
    }
}
