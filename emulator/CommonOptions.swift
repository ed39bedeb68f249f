import ArgumentParser
import EmulatorKit
import Foundation
import InkraAuth
import Logging

/// The flags every command that runs the functions shares (docs/emulator.md).
struct CommonOptions: ParsableArguments {
    @Option(help: "A JWKS file to trust instead of the development key's.")
    var jwks: String?

    @Option(help: "The issuer tokens must carry (instead of --user-pool-id/--region).")
    var issuer: String?

    @Option(name: .customLong("user-pool-id"), help: "A Cognito user pool id, e.g. us-east-1_AbCdEf123.")
    var userPoolID: String?

    @Option(help: "The user pool's region (default: the pool id's prefix).")
    var region: String?

    @Option(name: .customLong("client-id"), help: "An accepted app client id (repeatable).")
    var clientIDs: [String] = []

    @Option(name: .customLong("token-use"), help: "Accepted tokens: id (as template.yaml deploys), access or any.")
    var tokenUse = Choice(EmulatorOptions.defaultTokenUse)

    @Option(name: .customLong("clock-skew"), help: "Seconds of tolerance on exp, nbf and iat.")
    var clockSkew: Double = CognitoConfiguration.defaultClockTolerance

    @Option(help: "Keep the in-memory table in this file between runs.")
    var state: String?

    @Option(
        name: .customLong("dynamodb-endpoint"), help: "Keep usage in DynamoDB at this URL (DynamoDB Local, moto, …).")
    var dynamoDBEndpoint: String?

    @Option(help: "The usage table's name.")
    var table: String = "inkra-usage"

    @Option(help: "A JSON limits file.")
    var limits: String?

    @Option(
        help: ArgumentHelp(
            """
            A fixed ISO-8601 instant for every invocation (default: replay, run-runtime and invoke: the time \
            each event was recorded, else the real time; serve and usage: the real time).
            """,
            valueName: Instant.valueName))
    var now: Instant?

    @Option(help: "The question generator's seed.")
    var seed: UInt64 = 0

    @Option(name: .customLong("log-level"), help: "The functions' log level.")
    var logLevel = Choice(Logger.Level.warning)

    func validate() throws {
        if let dynamoDBEndpoint {
            guard let url = URL(string: dynamoDBEndpoint), url.scheme == "http" || url.scheme == "https",
                url.host != nil
            else {
                throw ValidationError("--dynamodb-endpoint must be an http or https URL, not \"\(dynamoDBEndpoint)\"")
            }
        }
        if issuer != nil && userPoolID != nil {
            throw ValidationError("give --issuer or --user-pool-id, not both")
        }
        guard clockSkew >= 0 else { throw ValidationError("--clock-skew must not be negative") }
    }

    /// The emulator's options from the flags.
    func emulatorOptions() throws -> EmulatorOptions {
        var options = EmulatorOptions(clock: { Date() })
        options.jwksFile = jwks.map { URL(fileURLWithPath: $0) }
        options.issuer = issuer
        options.userPoolID = userPoolID
        options.region = region
        options.clientIDs = clientIDs
        options.tokenUse = tokenUse.value
        options.clockSkew = clockSkew
        options.stateFile = state.map { URL(fileURLWithPath: $0) }
        options.tableName = table
        options.limitsFile = limits.map { URL(fileURLWithPath: $0) }
        options.now = now?.date
        options.seed = seed
        options.dynamoDBEndpoint = dynamoDBEndpoint.flatMap(URL.init(string:))
        if options.trustsDevelopmentKey { options.developmentKey = try DevelopmentKeyLocator.load() }
        return options
    }
}
