import Foundation
import InkraHandlers
import InkraJSON

/// Replays recorded events through the stack, in name order, with state shared across them.
public struct Replayer: Sendable {
    /// The stack events run on.
    public let stack: EmulatorStack
    /// Write each event's expectation from its result instead of comparing.
    public var update = false
    /// Only events for these functions are replayed (all when `nil`).
    public var functions: Set<FunctionName>?
    /// Runs the target function somewhere else than in-process (a real runtime).
    public var target: FunctionTarget?
    /// Whether the returned records keep each event's result. A command line that prints every
    /// record as it goes needs only the verdicts afterwards, and a long replay then holds no
    /// responses in memory.
    public var keepsResults = true

    /// A replayer over a stack.
    public init(stack: EmulatorStack, update: Bool = false) {
        self.stack = stack
        self.update = update
    }

    /// Replays files and folders.
    /// - Parameters:
    ///   - paths: event files and folders.
    ///   - report: called after each event with its record, its position and the total.
    /// - Returns: every event's record.
    public func replay(
        _ paths: [URL],
        report: (ReplayRecord, _ position: Int, _ total: Int) -> Void = { _, _, _ in }
    ) async -> [ReplayRecord] {
        var files = EventFiles.collect(paths)
        if let functions {
            files = files.filter { file in Self.function(of: file).map(functions.contains) ?? true }
        }
        var records: [ReplayRecord] = []
        records.reserveCapacity(files.count)
        for (index, file) in files.enumerated() {
            var record = await replay(file)
            report(record, index + 1, files.count)
            if !keepsResults { record.invocation = nil }
            records.append(record)
        }
        return records
    }

    /// Replays one event given as JSON (no file), with its function named.
    public func replay(event: JSONValue, function: FunctionName) async -> Invocation {
        let (cleaned, time) = Self.prepare(event)
        return await invoke(function, cleaned, at: time)
    }

    private func replay(_ file: EventFile) async -> ReplayRecord {
        var record = ReplayRecord(file: file.display)
        guard !file.missing else {
            record.problem = "no such file or folder"
            return record
        }
        let event: JSONValue
        do {
            let data = try Data(contentsOf: file.url)
            guard data.count <= Self.maximumEventSize else {
                record.problem = "event is \(data.count) bytes; Lambda accepts at most \(Self.maximumEventSize)"
                return record
            }
            event = try JSONParser.parse(Self.jsonBytes(of: data))
        } catch let error as JSONParseError {
            record.problem = "not valid JSON: \(error)"
            return record
        } catch {
            record.problem = "cannot be read: \(error.localizedDescription)"
            return record
        }
        guard event.object != nil else {
            record.problem = "an event must be a JSON object, not \(event.typeName)"
            return record
        }
        let named = event["x-inkra-function"]?.string
        if let named, FunctionName(caseInsensitive: named) == nil {
            record.problem =
                "x-inkra-function \"\(named)\" is not one of \(FunctionName.allCases.map(\.rawValue).joined(separator: ", "))"
            return record
        }
        guard let function = named.flatMap(FunctionName.init(caseInsensitive:)) ?? file.functionFromFolder else {
            record.problem =
                "cannot tell which function this event is for: put it under a folder named after the function "
                + "(events/generateQuestions/…) or add \"x-inkra-function\""
            return record
        }
        record.function = function

        let (cleaned, time) = Self.prepare(event)
        let started = ContinuousClock.now
        let invocation = await invoke(function, cleaned, at: time)
        record.duration = ContinuousClock.now - started
        record.invocation = invocation

        let expectationURL = file.expectationURL
        if update {
            let expectation = Expectation(recording: invocation)
            do {
                try Data((expectation.json.prettyJSONString + "\n").utf8).write(to: expectationURL, options: .atomic)
                record.updated = true
            } catch {
                record.problem = "cannot write \(expectationURL.lastPathComponent): \(error.localizedDescription)"
            }
            return record
        }
        guard FileManager.default.fileExists(atPath: expectationURL.path) else { return record }
        do {
            let data = try Data(contentsOf: expectationURL)
            let expectation = Expectation(json: try JSONParser.parse(Self.jsonBytes(of: data)))
            record.checked = true
            record.mismatches = expectation.mismatches(invocation)
        } catch {
            record.problem = "\(expectationURL.lastPathComponent) is not valid JSON: \(error)"
        }
        return record
    }

    /// The function an event file is for, without running it (`nil` when it cannot be told).
    static func function(of file: EventFile) -> FunctionName? {
        if let data = try? Data(contentsOf: file.url), let event = try? JSONParser.parse(jsonBytes(of: data)),
            let named = event["x-inkra-function"]?.string
        {
            return FunctionName(caseInsensitive: named)
        }
        return file.functionFromFolder
    }

    private func invoke(_ function: FunctionName, _ event: JSONValue, at time: Date?) async -> Invocation {
        var chain = stack.gateway
        chain.target = target
        chain.recordedTime = time
        guard stack.options.now == nil, let time else { return await chain.invoke(function, event: event) }
        let caller = #isolation
        return await InvocationClock.$instant.withValue(time) {
            await isolated(to: caller) { await chain.invoke(function, event: event) }
        }
    }

    /// Lambda's limit on a synchronous invocation's payload.
    public static let maximumEventSize = 6 * 1024 * 1024

    /// The event without the emulator's own fields, and the instant it was recorded.
    public static func prepare(_ event: JSONValue) -> (JSONValue, Date?) {
        var cleaned = event
        cleaned.set(nil, at: ["x-inkra-function"])
        cleaned.set(nil, at: ["x-inkra-recorded-at"])
        return (cleaned, recordedTime(event))
    }

    /// `requestContext.requestTimeEpoch` / `timeEpoch` (milliseconds), else `x-inkra-recorded-at`
    /// (ISO-8601), the field the emulator reads for authorizer events, which carry no time.
    static func recordedTime(_ event: JSONValue) -> Date? {
        if let time = InvocationClock.requestTime(of: event) { return time }
        if let text = event["x-inkra-recorded-at"]?.string { return ISO8601.parse(text) }
        return nil
    }
}

/// What happened to one event of a replay.
public struct ReplayRecord: Sendable {
    /// The event file, as named in output.
    public var file: String
    /// The function it was for.
    public var function: FunctionName?
    /// The result, when the event could be run.
    public var invocation: Invocation?
    /// Why the event could not be run or checked.
    public var problem: String?
    /// Differences from the expectation.
    public var mismatches: [String] = []
    /// Whether an expectation file was compared.
    public var checked = false
    /// Whether `--update` wrote the expectation.
    public var updated = false
    /// How long the chain took.
    public var duration: Duration = .zero

    /// Whether the event ran and matched its expectation (if any).
    public var ok: Bool { problem == nil && mismatches.isEmpty }
}
