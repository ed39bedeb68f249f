import ArgumentParser
import EmulatorKit
import Foundation
import InkraJSON

extension ReplayCommand {
    /// `replay report`: the what-if report of docs/emulator.md, in text or as one JSON object; exit 0
    /// whatever changed, 2 when there was nothing to replay.
    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "What if: replay recorded traffic under --limits and report the outcomes that change.",
            discussion: """
                Replays recorded traffic under --limits and reports, against each event's recorded outcome, the \
                calls admitted before and refused now (by window) and refused before and admitted now, by tier, \
                with the users affected and a few request ids; it exits 0 however many outcomes change.
                  swift run inkra-emulator replay report recorded/ --limits new-limits.json
                  swift run inkra-emulator replay report recorded/ --limits new-limits.json --json

                --algorithm decides the same calls as another way of counting would have, at their recorded \
                instants and under the same limits: calendar (the default: UTC clock hours, days and months, as \
                the functions count), sliding-window (the calls admitted in the hour, 24 hours and 30 days before \
                each call) or token-bucket (per window a bucket of limit tokens refilled at limit / window length, \
                30 days for the month). Two calls at 10:59 and two at 11:00 under 2 an hour: calendar admits 4, \
                the others 2.
                  swift run inkra-emulator replay report recorded/ --algorithm sliding-window
                  swift run inkra-emulator replay report recorded/ --limits new-limits.json --algorithm token-bucket --json
                """
        )

        @OptionGroup var events: EventPaths

        @Flag(help: "Print the report as one JSON object instead of text.")
        var json = false

        @OptionGroup var whatIf: WhatIfOptions

        @OptionGroup var workers: WorkerOptions

        @OptionGroup var recording: RecordingOptions

        @OptionGroup var common: CommonOptions

        func run() async throws {
            let targets = try events.targets()
            let (stack, cacheTTL, tokens) = try await recording.stack(common, for: targets)
            var replayer = try WhatIfReplayer(stack: stack, recordedLimits: try whatIf.recorded())
            replayer.exampleLimit = 3
            replayer.algorithm = whatIf.algorithm
            replayer.replayer = replayer.replayer.cachingAuthorizer(for: cacheTTL)
            replayer.replayer.recordedTokens = tokens
            let progress = Progress()
            let report = await replayer.report(targets, jobs: workers.jobs) { position, total in
                progress.show(position, total)
            }
            progress.clear()
            try stack.saveState()
            guard report.events > 0 else {
                for problem in report.problems { Output.err("\(problem.file): \(problem.problem)") }
                throw events.nothingFound(in: targets)
            }
            Output.out(json ? report.json.jsonString : report.text)
        }
    }
}
