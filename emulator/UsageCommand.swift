import ArgumentParser
import EmulatorKit
import Foundation
import InkraAuth
import InkraJSON
import InkraTime
import InkraUsage

struct UsageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "usage",
        abstract: "Show a user's usage in every window, or the users refused on a date.",
        discussion: """
            Reads the table named by --state (or --dynamodb-endpoint); an in-memory run with neither is empty.

            Examples, from the repository root (replay events into a new state file, then read it):
              swift run inkra-emulator replay events --state /tmp/inkra-state.json
              swift run inkra-emulator usage --sub scenario-free-user \\
                --state /tmp/inkra-state.json --now 2026-11-18T12:00:00Z
              swift run inkra-emulator usage --refused-on 2026-11-17 \\
                --state /tmp/inkra-state.json
            """
    )

    @Option(help: "The user id (sub) whose usage to show.")
    var sub: String?

    @Option(
        name: .customLong("refused-on"),
        help: ArgumentHelp("A UTC date, YYYY-MM-DD: list the users refused that day.", valueName: UTCDate.valueName))
    var refusedOn: UTCDate?

    @Option(help: "The user's tier, for the limits shown.")
    var tier = Choice(Tier.free)

    @OptionGroup var common: CommonOptions

    func validate() throws {
        guard (sub == nil) != (refusedOn == nil) else { throw ValidationError("give either --sub or --refused-on") }
    }

    func run() async throws {
        LogSetup.bootstrap(level: common.logLevel.value)
        let options = try common.emulatorOptions()
        let stack = try await EmulatorStack(options: options)
        if options.stateFile == nil {
            Output.err("note: no --state given, so this reads an empty in-memory table")
        }
        if let refusedOn {
            let users = try await stack.store.refusedUsers(on: refusedOn.text)
            Output.out(JSONValueBuilder.refused(day: refusedOn.text, users: users))
            return
        }
        guard let sub else { return }
        let limits = (options.limitsFile.map { try? TierLimits(contentsOfFile: $0.path) } ?? nil) ?? TierLimits()
        let report = try await stack.store.usage(
            for: sub,
            at: options.now ?? Timestamp.now,
            limits: limits.limits(forTier: tier.value.rawValue)
        )
        Output.out(JSONValueBuilder.usage(user: sub, report: report))
    }
}
