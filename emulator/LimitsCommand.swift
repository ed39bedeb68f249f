import ArgumentParser
import EmulatorKit
import Foundation
import InkraJSON

/// `inkra-emulator limits lint LIMITS`: what a limits file's calendar windows let through.
struct LimitsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "limits",
        abstract: "Check a limits file: the boundary bursts its calendar windows allow.",
        discussion: """
            lint LIMITS prints, per tier, the most calls one user can make in any rolling hour, 24 hours and \
            30 days under the file's calendar windows (UTC hours, days and months, as the functions count \
            them): a user who calls at the end of one window and the start of the next makes up to twice a \
            window's limit (2 calls at 10:59 and 2 at 11:00 under 2 an hour), and a rolling 30 days can touch \
            three months around a February. Then the most calls to the model a calendar month of 31 days can \
            hold at --users users of each tier. Tiers the file does not name keep the defaults \
            (docs/limits.md).

            Examples, from the repository root:
              swift run inkra-emulator limits lint new-limits.json
              swift run inkra-emulator limits lint new-limits.json --users 10000 --json
            """
    )

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case lint
    }

    @Argument(help: "lint.")
    var action: Action

    @Argument(help: "The limits file (docs/limits.md).")
    var file: String

    @Option(help: "The users the month's worst case is counted for.")
    var users = 1000

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func validate() throws {
        guard users >= 1 else { throw ValidationError("--users must be at least 1, not \(users)") }
    }

    func run() async throws {
        let limits = try WhatIfReplayer.limits(URL(fileURLWithPath: file), flag: "limits lint")
        let bounds = LimitsLint.bounds(of: limits)
        Output.out(json ? LimitsLint.json(bounds, users: users).jsonString : LimitsLint.text(bounds, users: users))
    }
}
