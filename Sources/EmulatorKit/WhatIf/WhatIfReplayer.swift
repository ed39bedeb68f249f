import Foundation
import InkraHandlers
import InkraUsage

/// Replays recorded traffic under other limits and builds a ``WhatIfReport`` against the recorded
/// outcomes (each event's `<name>.expected.json`). Every event runs, in name order, on one table as
/// `replay` runs them; only `generateQuestions` calls are compared.
public struct WhatIfReplayer: Sendable {
    /// The stack, built with the new limits (`--limits`).
    public let stack: EmulatorStack
    /// The new limits, as the stack's limits file gives them.
    public let limits: TierLimits
    /// Moves recorded contexts' quotas to the new limits.
    public var quota: RecordedQuota
    /// How many examples each change keeps.
    public var exampleLimit = 3

    /// A what-if replayer on a stack.
    /// - Parameters:
    ///   - stack: the stack, whose limits file holds the new limits.
    ///   - recordedLimits: the limits the traffic was recorded under (the defaults unless the
    ///     deployed stack had a limits file).
    /// - Throws: ``EmulatorError`` naming the limits file and its fault.
    public init(stack: EmulatorStack, recordedLimits: TierLimits = TierLimits()) throws(EmulatorError) {
        self.stack = stack
        limits = try Self.limits(stack.options.limitsFile, flag: "--limits")
        quota = RecordedQuota(recorded: recordedLimits, replayed: limits)
    }

    /// Reads a limits file for a flag, or the defaults when none is named.
    /// - Throws: ``EmulatorError`` naming the flag, the file and its fault.
    public static func limits(_ file: URL?, flag: String) throws(EmulatorError) -> TierLimits {
        guard let file else { return TierLimits() }
        do {
            return try TierLimits(contentsOf: file)
        } catch {
            throw EmulatorError("\(flag): \(error)")
        }
    }

    /// Replays files and folders and reports what changed.
    /// - Parameters:
    ///   - paths: event files and folders.
    ///   - progress: called after each event with its position and the total.
    /// - Returns: the report.
    public func report(_ paths: [URL], progress: (_ position: Int, _ total: Int) -> Void = { _, _ in }) async
        -> WhatIfReport
    {
        let files = EventFiles.collect(paths)
        var calls: [MeteredCall] = []
        var problems: [WhatIfReport.Problem] = []
        var notMetered = 0
        var withoutRecording = 0
        for (index, file) in files.enumerated() {
            defer { progress(index + 1, files.count) }
            switch await replay(file) {
            case .problem(let problem): problems.append(WhatIfReport.Problem(file: file.display, problem: problem))
            case .notMetered: notMetered += 1
            case .withoutRecording: withoutRecording += 1
            case .call(let call): calls.append(call)
            }
        }
        var report = WhatIfReport(
            calls: calls, limits: limits, limitsFile: stack.options.limitsFile?.relativePath,
            exampleLimit: exampleLimit)
        report.events = files.count - problems.count
        report.notMetered = notMetered
        report.withoutRecording = withoutRecording
        report.problems = problems
        return report
    }

    private enum Replayed {
        case problem(String)
        case notMetered
        case withoutRecording
        case call(MeteredCall)
    }

    private func replay(_ file: EventFile) async -> Replayed {
        guard !file.missing else { return .problem("no such file or folder") }
        let event: JSONValue
        do {
            let data = try Data(contentsOf: file.url)
            guard data.count <= Replayer.maximumEventSize else {
                return .problem("event is \(data.count) bytes; Lambda accepts at most \(Replayer.maximumEventSize)")
            }
            event = try JSONParser.parse(Replayer.jsonBytes(of: data))
        } catch {
            return .problem("not valid JSON or cannot be read: \(error)")
        }
        guard event.object != nil else { return .problem("an event must be a JSON object, not \(event.typeName)") }
        guard
            let function = event["x-inkra-function"]?.string.flatMap(FunctionName.init(caseInsensitive:))
                ?? (event["x-inkra-function"] == nil ? file.functionFromFolder : nil)
        else {
            return .problem("cannot tell which function this event is for (its folder or \"x-inkra-function\")")
        }
        let invocation = await Replayer(stack: stack).replay(event: quota.moving(event), function: function)
        guard function == .generateQuestions else { return .notMetered }
        guard FileManager.default.fileExists(atPath: file.expectationURL.path) else { return .withoutRecording }
        let expectation: JSONValue
        do {
            expectation = try JSONParser.parse(Replayer.jsonBytes(of: Data(contentsOf: file.expectationURL)))
        } catch {
            return .problem("\(file.expectationURL.lastPathComponent) is not valid JSON: \(error)")
        }
        guard let recorded = Admission(expectation: expectation) else { return .withoutRecording }
        return .call(MeteredCall(file: file.display, event: event, recorded: recorded, invocation: invocation))
    }
}
