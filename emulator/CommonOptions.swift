import ArgumentParser
import EmulatorKit
import Foundation
import HTTPText
import InkraAuth
import InkraTime
import Logging

/// The flags every command that runs the functions shares (docs/emulator.md).
struct CommonOptions: ParsableArguments {
    @Option(help: "A JWKS file to trust instead of the development key's.")
    var jwks: String?

    @Option(help: "The issuer tokens must carry (instead of --user-pool-id/--region).")
    var issuer: String?

    @OptionGroup var pool: UserPoolOptions

    @Option(name: .customLong("token-use"), help: "Accepted tokens: id (as template.yaml deploys), access or any.")
    var tokenUse = Choice(EmulatorOptions.defaultTokenUse)

    @Option(name: .customLong("clock-skew"), help: "Seconds of tolerance on exp, nbf and iat.")
    var clockSkew: Double = CognitoConfiguration.defaultClockTolerance

    @OptionGroup var store: StoreOptions

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
        if issuer != nil && pool.userPoolID != nil {
            throw ValidationError("give --issuer or --user-pool-id, not both")
        }
        guard clockSkew >= 0 else { throw ValidationError("--clock-skew must not be negative") }
    }

    /// The emulator's options from the flags.
    func emulatorOptions() throws -> EmulatorOptions {
        var options = EmulatorOptions(clock: { Timestamp.now })
        options.jwksFile = jwks.map { URL(fileURLWithPath: $0) }
        options.issuer = issuer
        options.userPoolID = pool.userPoolID
        options.region = pool.region
        options.clientIDs = pool.clientIDs
        options.tokenUse = tokenUse.value
        options.clockSkew = clockSkew
        options.stateFile = store.state.map { URL(fileURLWithPath: $0) }
        options.tableName = store.table
        options.limitsFile = limits.map { URL(fileURLWithPath: $0) }
        options.now = now?.date
        options.seed = seed
        options.dynamoDBEndpoint = store.dynamoDBEndpoint.flatMap(HTTPURL.init(string:))
        if options.trustsDevelopmentKey { options.developmentKey = try DevelopmentKeyLocator.load() }
        return options
    }
}
