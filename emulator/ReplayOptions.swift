import ArgumentParser
import EmulatorKit
import Foundation
import InkraUsage

/// The events every replay job reads: files and folders, replayed in name order.
struct EventPaths: ParsableArguments {
    @Argument(help: "Event files and folders (default: events).")
    var paths: [String] = []

    /// The paths to replay, events/ when none is given.
    /// - Throws: ``UsageFailure`` naming a path that does not exist.
    func targets() throws -> [URL] {
        try UsageFailure.requireExisting(paths)
        return (paths.isEmpty ? ["events"] : paths).map { URL(fileURLWithPath: $0) }
    }

    /// Says on standard error that `targets` held nothing to replay; the exit status to throw.
    func nothingFound(in targets: [URL]) -> ExitCode {
        Output.err("no events found in \(targets.map(\.relativePath).joined(separator: ", "))")
        return ExitCode(2)
    }
}

/// How many events run side by side (`replay check`, `replay report`).
struct WorkerOptions: ParsableArguments {
    @Option(help: "How many events run at once (default: the cores); 1 runs them in turn.")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        if jobs < 1 { throw ValidationError("--jobs must be at least 1, not \(jobs)") }
    }
}

/// What the what-if jobs (`replay report`, `replay bill`) hold the replay against: the limits the
/// traffic was recorded under, and how the windows count.
struct WhatIfOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "How the windows count the calls: calendar, sliding-window or token-bucket.", valueName: "algorithm"))
    var algorithm: WindowAlgorithm = .calendar

    @Option(
        name: .customLong("recorded-limits"),
        help: "The limits file the traffic was recorded under (default: the default limits).")
    var recordedLimits: String?

    /// `--recorded-limits`' file, if given.
    var recordedFile: URL? { recordedLimits.map { URL(fileURLWithPath: $0) } }

    /// The limits the traffic was recorded under.
    /// - Throws: ``EmulatorError`` naming the file when it cannot be read.
    func recorded() throws -> TierLimits {
        try WhatIfReplayer.limits(recordedFile, flag: "--recorded-limits")
    }
}

extension WindowAlgorithm: ExpressibleByArgument {}
