import Foundation
import HTTPText
import InkraTestSupport
import Testing

/// The command line's shared pieces (issue #49): on/off pairs as `--x`/`--no-x`, and the store's
/// options one group that `admin` shares with the commands that run the functions.
@Suite("On/off pairs and the store's options (spawned)")
struct OptionGroupTests {
    @Test("serve's switches are pairs, on by default, and --no-x still turns each off")
    func servePairs() async throws {
        let help = try await runEmulator(["serve", "--help"])
        #expect(help.status == 0, "\(help.standardError)")
        // The help wraps at 80 columns: read it as one line.
        let text = help.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for name in ["throttle", "cors", "access-log", "console", "cognito"] {
            #expect(text.contains("--\(name)/--no-\(name)"), "\(name) in \(text)")
            #expect(text.contains("(default: --\(name))"), "\(name)'s default in \(text)")
        }
    }

    @Test("generate-event carries a token by default, and --token/--no-token say so")
    func tokenPair() async throws {
        let given = try await runEmulator(["generate-event", "rest-generate", "--sub", "alice"])
        #expect(given.status == 0, "\(given.standardError)")
        #expect(given.standardOutput.contains("Bearer "))
        let explicit = try await runEmulator(["generate-event", "rest-generate", "--sub", "alice", "--token"])
        #expect(explicit.standardOutput.contains("Bearer "), "\(explicit.standardError)")
        let none = try await runEmulator(["generate-event", "rest-generate", "--sub", "alice", "--no-token"])
        #expect(none.status == 0, "\(none.standardError)")
        #expect(!none.standardOutput.contains("Bearer "))
    }

    @Test("admin and replay read the store from the same options, and admin still wants one of them")
    func storeOptions() async throws {
        let admin = try await runEmulator(["admin", "refused", "--help"])
        let replay = try await runEmulator(["replay", "check", "--help"])
        for option in ["--state <state>", "--dynamodb-endpoint <dynamodb-endpoint>", "--table <table>"] {
            #expect(admin.standardOutput.contains(option), "\(option) in \(admin.standardOutput)")
            #expect(replay.standardOutput.contains(option), "\(option) in \(replay.standardOutput)")
        }
        let neither = try await runEmulator(["admin", "refused", "2026-11-17"])
        #expect(neither.status == 2)
        #expect(neither.standardError.contains("give either --state FILE or --dynamodb-endpoint URL"))
        let badURL = try await runEmulator(["admin", "refused", "2026-11-17", "--dynamodb-endpoint", "nowhere"])
        #expect(badURL.status == 2)
        #expect(badURL.standardError.contains("--dynamodb-endpoint must be an http or https URL, not \"nowhere\""))
    }
}
