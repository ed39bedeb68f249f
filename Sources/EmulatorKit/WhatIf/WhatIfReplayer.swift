import Foundation
import InkraHandlers
import InkraJSON
import InkraUsage

/// Replays recorded traffic under other limits and builds a ``WhatIfReport`` against the recorded
/// outcomes (each event's `<name>.expected.json`, or a JSON-lines event's `x-inkra-expected`). Every
/// event runs, in name order, on one table as `replay` runs them; only `generateQuestions` calls are compared.
package struct WhatIfReplayer: Sendable {
    /// The stack, built with the new limits (`--limits`).
    package let stack: EmulatorStack
    /// The new limits, as the stack's limits file gives them.
    package let limits: TierLimits
    /// Moves recorded contexts' quotas to the new limits.
    package var quota: RecordedQuota
    /// How many examples each change keeps.
    package var exampleLimit = 3
    /// How the windows count: `.calendar` reports the replay's own answers; another algorithm
    /// decides the metered calls again over their recorded instants (``WindowAlgorithm/redecide(_:limits:)``).
    package var algorithm = WindowAlgorithm.calendar
    /// What runs each event: the stack's chain with its authorizer cache, shared by every event.
    package var replayer: Replayer

    /// A what-if replayer on a stack.
    /// - Parameters:
    ///   - stack: the stack, whose limits file holds the new limits.
    ///   - recordedLimits: the limits the traffic was recorded under (the defaults unless the
    ///     deployed stack had a limits file).
    /// - Throws: ``EmulatorError`` naming the limits file and its fault.
    package init(stack: EmulatorStack, recordedLimits: TierLimits = TierLimits()) throws(EmulatorError) {
        self.stack = stack
        replayer = Replayer(stack: stack)
        limits = try Self.limits(stack.options.limitsFile, flag: "--limits")
        quota = RecordedQuota(recorded: recordedLimits, replayed: limits)
    }

    /// Reads a limits file for a flag, or the defaults when none is named.
    /// - Throws: ``EmulatorError`` naming the flag, the file and its fault.
    package static func limits(_ file: URL?, flag: String) throws(EmulatorError) -> TierLimits {
        guard let file else { return TierLimits() }
        do {
            return try TierLimits(contentsOfFile: file.path)
        } catch {
            throw EmulatorError("\(flag): \(error)")
        }
    }

    /// Replays files, folders and JSON-lines files and reports what changed.
    /// - Parameters:
    ///   - paths: event files, folders and JSON-lines files.
    ///   - jobs: how many events run at once; the report is the same for any number (``ReplayLanes``).
    ///   - progress: called as events are replayed with how many have been, and the total once known.
    /// - Returns: the report.
    package func report(
        _ paths: [URL], jobs: Int = 1, progress: (_ position: Int, _ total: Int?) -> Void = { _, _ in }
    ) async -> WhatIfReport {
        var calls: [MeteredCall] = []
        var problems: [WhatIfReport.Problem] = []
        var notMetered = 0
        var withoutRecording = 0
        var events = 0
        await ReplayLanes(jobs: jobs).run(EventSource(paths)) { event in
            await replay(event)
        } deliver: { results, total in
            for (file, result) in results {
                events += 1
                switch result {
                case .problem(let problem): problems.append(WhatIfReport.Problem(file: file, problem: problem))
                case .notMetered: notMetered += 1
                case .withoutRecording: withoutRecording += 1
                case .call(let call): calls.append(call)
                }
            }
            progress(events, total)
        }
        var report = WhatIfReport(
            calls: algorithm.redecide(calls, limits: limits), limits: limits,
            limitsFile: stack.options.limitsFile?.relativePath, exampleLimit: exampleLimit)
        report.algorithm = algorithm
        report.events = events - problems.count
        report.notMetered = notMetered
        report.withoutRecording = withoutRecording
        report.problems = problems
        return report
    }

    private enum Replayed: Sendable {
        case problem(String)
        case notMetered
        case withoutRecording
        case call(MeteredCall)
    }

    private func replay(_ loaded: LoadedEvent) async -> (String, Replayed) {
        if let problem = loaded.problem { return (loaded.display, .problem(problem)) }
        guard let function = loaded.function else { return (loaded.display, .problem("no function")) }
        let event: JSONValue
        do throws(EmulatorError) {
            event = try replayer.withRecordedToken(loaded.event, function: function).event
        } catch {
            return (loaded.display, .problem(error.message))
        }
        let moved = quota.moving(event)
        let invocation = await replayer.replay(event: moved, function: function)
        guard function == .generateQuestions else { return (loaded.display, .notMetered) }
        let expectation: JSONValue
        do throws(EmulatorError) {
            guard let expected = try loaded.expected() else { return (loaded.display, .withoutRecording) }
            expectation = expected
        } catch {
            return (loaded.display, .problem(error.message))
        }
        guard let recorded = Admission(expectation: expectation) else { return (loaded.display, .withoutRecording) }
        return (
            loaded.display,
            .call(MeteredCall(file: loaded.display, event: moved, recorded: recorded, invocation: invocation))
        )
    }
}
