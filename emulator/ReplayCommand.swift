import ArgumentParser
import EmulatorKit
import Foundation
import InkraJSON

#if canImport(Glibc)
    import Glibc
#endif

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay recorded API Gateway events through the functions, as API Gateway would.",
        discussion: """
            Files and folders are replayed in name order (default: events/). The function comes from the \
            folder (events/<function>/…) or an "x-inkra-function" field; events with an Authorization header \
            and no authorizer section run through the authorizer first. <name>.expected.json beside an event \
            holds its expected result. Exit status 1 when any event fails or mismatches.

            Examples, from the repository root:
              swift run inkra-emulator replay events
              swift run inkra-emulator replay events/generateQuestions --json

            What if: --report replays recorded traffic under --limits and reports, against each event's \
            recorded outcome, the calls admitted before and refused now (by window) and refused before and \
            admitted now, by tier, with the users affected and a few request ids; it exits 0 however many \
            outcomes change.
              swift run inkra-emulator replay recorded/ --limits new-limits.json --report
              swift run inkra-emulator replay recorded/ --limits new-limits.json --report --json
            """
    )

    @Argument(help: "Event files and folders (default: events).")
    var paths: [String] = []

    @Flag(help: "Write each event's expectation from its result instead of comparing.")
    var update = false

    @Flag(help: "Print one JSON object per event instead of text (with --report: the report as one object).")
    var json = false

    @Flag(help: "Report what --limits would change against the recorded outcomes, instead of checking each event.")
    var report = false

    @Option(
        name: .customLong("recorded-limits"),
        help: "With --report: the limits file the traffic was recorded under (default: the default limits).")
    var recordedLimits: String?

    @Option(
        name: .customLong("state-from-scan"),
        help: "Seed the table first from `aws dynamodb scan --output json` output (one or several pages).")
    var stateFromScan: String?

    @OptionGroup var common: CommonOptions

    func validate() throws {
        if report && update { throw ValidationError("give --report or --update, not both") }
        if recordedLimits != nil && !report { throw ValidationError("--recorded-limits goes with --report") }
    }

    func run() async throws {
        LogSetup.bootstrap(level: common.logLevel)
        let stack = try EmulatorStack(options: try common.emulatorOptions())
        if let stateFromScan {
            let scan = try TableScan(contentsOf: URL(fileURLWithPath: stateFromScan))
            try await scan.seed(stack.table, tableName: stack.options.tableName)
            Output.err("seeded \(scan.wireItems.count) items from \(stateFromScan)")
        }
        if report {
            try await runReport(on: stack)
            return
        }
        var replayer = Replayer(stack: stack, update: update)
        replayer.keepsResults = false
        let targets = (paths.isEmpty ? ["events"] : paths).map { URL(fileURLWithPath: $0) }
        let progress = Progress()
        let started = ContinuousClock.now
        let records = await replayer.replay(targets) { record, position, total in
            progress.clear()
            if json {
                Output.out(ReplayReporter.json(for: record).jsonString)
            } else {
                Output.out(ReplayReporter.line(for: record))
            }
            progress.show(position, total)
        }
        progress.clear()
        try stack.saveState()
        if !json { Output.out(ReplayReporter.summary(records, elapsed: ContinuousClock.now - started)) }
        if records.isEmpty {
            Output.err("no events found in \(targets.map(\.relativePath).joined(separator: ", "))")
            throw ExitCode(2)
        }
        if records.contains(where: { !$0.ok }) { throw ExitCode(1) }
    }
}

extension ReplayCommand {
    /// `--report`: the what-if report of docs/emulator.md, in text or as one JSON object; exit 0
    /// whatever changed, 2 when there was nothing to replay.
    fileprivate func runReport(on stack: EmulatorStack) async throws {
        let recorded = try WhatIfReplayer.limits(
            recordedLimits.map { URL(fileURLWithPath: $0) }, flag: "--recorded-limits")
        var replayer = try WhatIfReplayer(stack: stack, recordedLimits: recorded)
        replayer.exampleLimit = 3
        let targets = (paths.isEmpty ? ["events"] : paths).map { URL(fileURLWithPath: $0) }
        let progress = Progress()
        let report = await replayer.report(targets) { position, total in progress.show(position, total) }
        progress.clear()
        try stack.saveState()
        guard report.events > 0 else {
            for problem in report.problems { Output.err("\(problem.file): \(problem.problem)") }
            Output.err("no events found in \(targets.map(\.relativePath).joined(separator: ", "))")
            throw ExitCode(2)
        }
        Output.out(json ? report.json.jsonString : report.text)
    }
}

/// A progress line on standard error for long replays: redrawn in place on a terminal, a line
/// every second otherwise.
final class Progress {
    private let terminal = isatty(STDERR_FILENO) == 1
    private var last = ContinuousClock.now
    private var drawn = false

    func show(_ position: Int, _ total: Int) {
        guard total >= 200, position < total else { return }
        let now = ContinuousClock.now
        guard now - last >= .milliseconds(terminal ? 100 : 1000) else { return }
        last = now
        let percent = position * 100 / total
        if terminal {
            FileHandle.standardError.write(Data("\r  replaying \(position)/\(total) events (\(percent)%)".utf8))
            drawn = true
        } else {
            Output.err("  replayed \(position)/\(total) events (\(percent)%)")
        }
    }

    func clear() {
        guard drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }
}
