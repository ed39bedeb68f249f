import ArgumentParser

/// `replay`: recorded API Gateway events through the functions, one subcommand per job
/// (docs/emulator.md); `replay EVENTS…` is `replay check EVENTS…`.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay recorded API Gateway events: check them, report what new limits change, bill them.",
        discussion: """
            Each job is a subcommand with its own options (inkra-emulator replay JOB --help); check is the \
            default, so replay EVENTS… is replay check EVENTS…. The spellings of 0.1 still run until 0.3.0, with a \
            notice: replay --report (now replay report), replay --report --cost (replay bill), replay --endpoint URL \
            (replay endpoint URL).

            Examples, from the repository root:
              swift run inkra-emulator replay events
              swift run inkra-emulator replay report recorded/ --limits new-limits.json
              swift run inkra-emulator replay bill events
              swift run inkra-emulator replay endpoint "$API_URL" scripts/endpoint-events/rest --token-file token.txt
            """,
        subcommands: [Check.self, Report.self, Bill.self, Endpoint.self],
        defaultSubcommand: Check.self
    )
}
