import Foundation
import HTTPText
import InkraAuth
import InkraTime

/// What the emulator runs with: whose tokens it trusts, where state lives, the clock and the seed.
package struct EmulatorOptions: Sendable {
    /// A JWKS file to trust instead of the development key's.
    package var jwksFile: URL?
    /// The issuer tokens must carry; default: the development pool's.
    package var issuer: String?
    /// A Cognito user pool id (with ``region``), instead of ``issuer``.
    package var userPoolID: String?
    /// The pool's region.
    package var region: String?
    /// Accepted client ids; default: the development client.
    package var clientIDs: [String] = []
    /// Which tokens are accepted; ``defaultTokenUse`` unless another is named.
    package var tokenUse: TokenUse = Self.defaultTokenUse
    /// Seconds of tolerance on `exp`, `nbf`, `iat`: the deployed authorizer's default unless set.
    package var clockSkew: TimeInterval = CognitoConfiguration.defaultClockTolerance
    /// Where the in-memory table is kept between runs.
    package var stateFile: URL?
    /// The table's name.
    package var tableName = "inkra-usage"
    /// A limits file, read again each ``limitsMaxAge`` of the stack's clock.
    package var limitsFile: URL?
    /// Seconds the limits file's limits are kept before the next call reads it again; `nil`: the
    /// runtime's default (`INKRA_LIMITS_MAX_AGE`).
    package var limitsMaxAge: TimeInterval?
    /// The upgrade URL sent with monthly refusals.
    package var upgradeURL = "https://inkra.app/premium"
    /// A fixed clock for every invocation, instead of each event's recorded time.
    package var now: Timestamp?
    /// The question generator's seed.
    package var seed: UInt64 = 0
    /// A DynamoDB-compatible endpoint to keep usage in, instead of the in-memory table.
    package var dynamoDBEndpoint: HTTPURL?
    /// The development key (emulator/dev-keys), trusted unless another JWKS or pool is named.
    package var developmentKey: DevelopmentKey?

    /// The token use template.yaml deploys (its Globals' `INKRA_TOKEN_USE: id`): what `token` mints
    /// and `serve`, `replay` and `invoke` accept unless `--token-use` says otherwise. A test holds it
    /// to template.yaml.
    package static let defaultTokenUse = TokenUse.id

    /// The real time, for everything not replayed at a recorded instant or `--now`.
    package var clock: @Sendable () -> Timestamp

    /// The defaults (trust the development key, in memory, recorded time, seed 0) on a clock; the
    /// command line passes the system clock.
    package init(clock: @escaping @Sendable () -> Timestamp) {
        self.clock = clock
    }

    /// Whether the development key is the trusted one.
    package var trustsDevelopmentKey: Bool { jwksFile == nil && issuer == nil && userPoolID == nil }

    /// The Cognito settings the authorizer checks tokens against.
    /// - Throws: ``EmulatorError`` when a pool is named without its region.
    package func cognitoConfiguration() throws(EmulatorError) -> CognitoConfiguration {
        let ids = clientIDs.isEmpty && trustsDevelopmentKey ? [DevelopmentKey.clientID] : clientIDs
        if let issuer {
            return CognitoConfiguration(
                issuer: issuer,
                clientIds: ids,
                tokenUse: tokenUse,
                clockTolerance: clockSkew
            )
        }
        if let userPoolID {
            let region = region ?? String(userPoolID.prefix { $0 != "_" })
            guard !region.isEmpty, userPoolID.contains("_") else {
                throw EmulatorError("--user-pool-id \(userPoolID) needs --region (or the form us-east-1_AbCdEf)")
            }
            return CognitoConfiguration(
                region: region,
                userPoolId: userPoolID,
                clientIds: ids,
                tokenUse: tokenUse,
                clockTolerance: clockSkew
            )
        }
        return CognitoConfiguration(
            issuer: DevelopmentKey.issuer,
            clientIds: ids,
            tokenUse: tokenUse,
            clockTolerance: clockSkew
        )
    }
}

/// A problem the emulator reports to its user, naming the file or flag at fault.
package struct EmulatorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    package var message: String

    /// Creates an error.
    package init(_ message: String) { self.message = message }

    package var description: String { message }
}
