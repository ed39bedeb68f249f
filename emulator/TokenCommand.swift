import ArgumentParser
import EmulatorKit
import Foundation
import InkraAuth
import InkraTime

struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Mint a token signed with the development key (local development only).",
        discussion: """
            Prints the token (a JWT) on standard output; replay, invoke and serve trust it by default.

            Examples, from the repository root:
              swift run inkra-emulator token --sub alice
              swift run inkra-emulator token --sub bob --tier premium --expires-in 600
            """
    )

    @OptionGroup var claims: TokenClaimOptions

    func run() throws {
        let key = try DevelopmentKeyLocator.load()
        Output.out(try claims.mint(with: key, at: claims.instant))
    }
}

/// The claims of a development token.
struct TokenClaimOptions: ParsableArguments {
    @Option(help: "The user id (sub).")
    var sub: String

    @Option(help: "The user's email (id tokens only; default: <sub>@example.com).")
    var email: String?

    @Option(help: "free or premium: custom:subscription_tier (id token), or the premium_tier/free_tier group (access).")
    var tier: String?

    @Option(help: "Cognito groups, comma-separated (e.g. premium_tier or blocked).")
    var groups: String?

    @Option(help: "custom:monthly_quota (id tokens only: access tokens carry no custom attributes).")
    var quota: Int?

    @Option(name: .customLong("token-use"), help: "id (as template.yaml deploys) or access.")
    var tokenUse: String = EmulatorOptions.defaultTokenUse.rawValue

    @Option(name: .customLong("expires-in"), help: "Seconds until the token expires.")
    var expiresIn: Int = 3600

    @Option(name: .customLong("client-id"), help: "The app client id (client_id, or aud for id tokens).")
    var clientID: String = DevelopmentKey.clientID

    @Option(help: "The issuer (default: the development pool).")
    var issuer: String = DevelopmentKey.issuer

    @Option(help: ArgumentHelp("Mint as of this ISO-8601 instant (default: now).", valueName: Instant.valueName))
    var now: Instant?

    func validate() throws {
        guard !sub.isEmpty else { throw ValidationError("--sub must not be empty") }
        do {
            try developmentClaims.check()
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// `--now`, or the real time.
    var instant: Timestamp { now?.date ?? Timestamp.now }

    /// The claims the flags describe.
    var developmentClaims: DevelopmentTokens.Claims {
        DevelopmentTokens.Claims(
            sub: sub,
            email: email,
            tier: tier,
            groups: groups.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } },
            quota: quota,
            tokenUse: tokenUse,
            clientID: clientID,
            issuer: issuer,
            expiresIn: TimeInterval(expiresIn)
        )
    }

    func mint(with key: DevelopmentKey, at instant: Timestamp) throws -> String {
        try DevelopmentTokens.mint(with: key, claims: developmentClaims, at: instant)
    }
}
