import Foundation
import InkraHandlers
import InkraJSON
import InkraTime

/// Replays recorded events through the stack, in name order (JSON-lines files in line order), with
/// state shared across them.
package struct Replayer: Sendable {
    /// The stack events run on.
    package let stack: EmulatorStack
    /// Write each event's expectation from its result instead of comparing.
    package var update = false
    /// Only events for these functions are replayed (all when `nil`).
    package var functions: Set<FunctionName>?
    /// Runs the target function somewhere else than in-process (a real runtime).
    package var target: FunctionTarget?
    /// Whether the returned records keep each event's result. A command line that prints every
    /// record as it goes needs only the verdicts afterwards, and a long replay then holds no
    /// responses in memory.
    package var keepsResults = true
    /// Whether an event's keys (its user, its `Idempotency-Key`) stay in the lane they were first
    /// placed in for the whole replay, when `jobs` > 1: `run-runtime` sends each lane to a runtime
    /// process of its own, which holds those users' usage (``StickyLanes``).
    package var stickyLanes = false
    /// API Gateway's authorizer cache, on the recorded clock: an event's `Authorization` header
    /// answered within the time to live of an earlier one's answer is answered from it, as the
    /// deployed API answered it (template.yaml's 300 s by default; `nil` runs the authorizer for
    /// every event). Events of one user share a lane, so a token's events meet it in input order
    /// whatever `jobs` is.
    package var authorizerCache: AuthorizerCache?
    /// Signs the claims `import --with-tokens` recorded into tokens for the events they apply to
    /// (``RecordedTokenSigner``), so imported events run through the authorizer; `nil` leaves
    /// every event as it is.
    package var recordedTokens: RecordedTokenSigner?

    /// The lane the running event was placed in, from 0 to `jobs` - 1 (0 when `jobs` is 1): a
    /// ``target`` with several runtimes behind it picks the lane's.
    @TaskLocal package static var lane = 0

    /// A replayer over a stack.
    package init(stack: EmulatorStack, update: Bool = false) {
        self.stack = stack
        self.update = update
        authorizerCache = AuthorizerCache(timeToLive: AuthorizerCache.templateTimeToLive, now: stack.options.clock)
    }

    /// The replayer with answers cached for `timeToLive` seconds of recorded time (0: no cache).
    package func cachingAuthorizer(for timeToLive: TimeInterval) -> Replayer {
        var replayer = self
        replayer.authorizerCache =
            timeToLive > 0 ? AuthorizerCache(timeToLive: timeToLive, now: stack.options.clock) : nil
        return replayer
    }

    /// Replays files, folders and JSON-lines files, collecting every record.
    /// - Parameters:
    ///   - paths: event files, folders and JSON-lines files.
    ///   - jobs: how many events run at once (see ``replay(_:jobs:each:)``).
    ///   - report: called after each event with its record, its position and the total (the
    ///     position when the total is not known yet).
    /// - Returns: every event's record, in input order.
    package func replay(
        _ paths: [URL], jobs: Int = 1,
        report: (ReplayRecord, _ position: Int, _ total: Int) -> Void = { _, _, _ in }
    ) async -> [ReplayRecord] {
        var records: [ReplayRecord] = []
        await replay(paths, jobs: jobs) { record, total in
            report(record, records.count + 1, total ?? records.count + 1)
            var record = record
            if !keepsResults { record.invocation = nil }
            records.append(record)
        }
        return records
    }

    /// Replays files, folders and JSON-lines files, handing each record over in input order and
    /// keeping none. With `jobs` > 1, events of different users run side by side (``ReplayLanes``)
    /// and the records, the table's final state and every expectation written are what one job
    /// gives. With ``stickyLanes``, a replay stops before an event that ties keys of two lanes
    /// (``ReplayTally/stopped``), having handed over every record before it.
    /// - Parameters:
    ///   - paths: event files, folders and JSON-lines files.
    ///   - jobs: how many events run at once; 1 runs them in turn.
    ///   - each: called with each record, in input order, and how many events there are once known.
    /// - Returns: the count of each verdict.
    @discardableResult
    package func replay(
        _ paths: [URL], jobs: Int, each: (ReplayRecord, _ total: Int?) -> Void
    ) async -> ReplayTally {
        var tally = ReplayTally()
        let functions = functions
        var lanes = ReplayLanes(jobs: jobs)
        lanes.sticky = stickyLanes
        let stopped = await lanes.run(EventSource(paths)) { event in
            guard let functions, let function = event.function else { return true }
            return functions.contains(function)
        } work: { event in
            await run(event)
        } deliver: { records, total in
            for record in records {
                tally.add(record)
                each(record, total)
            }
        }
        tally.stopped = stopped
        return tally
    }

    /// The event as replay runs it: with a token signed from recorded claims in place of its
    /// injected authorizer context, when ``recordedTokens`` has claims for it (`import
    /// --with-tokens`; ``RecordedTokenSigner``), and whether it was signed. Every report of
    /// `replay` (the lines, the what-if, the bill) runs events through this.
    /// - Throws: when recorded claims cannot be signed, or an authorizer event `import
    ///   --with-tokens` wrote comes without its claims file.
    package func withRecordedToken(
        _ event: JSONValue, function: FunctionName
    ) throws(EmulatorError) -> (event: JSONValue, signed: Bool) {
        guard let recordedTokens else {
            if function == .authorizer, event[RecordedTokenSigner.recordedTokenField] != nil {
                throw EmulatorError(
                    "an authorizer event import --with-tokens wrote: its token is signed from "
                        + "\(RecordedTokens.fileName), which is not in its folder or the one above")
            }
            return (event, false)
        }
        guard let signed = try recordedTokens.signing(event, function: function, at: Self.recordedTime(event)) else {
            return (event, false)
        }
        return (signed, true)
    }

    /// Replays one event given as JSON (no file), with its function named.
    package func replay(event: JSONValue, function: FunctionName) async -> Invocation {
        let (cleaned, time) = Self.prepare(event)
        return await invoke(function, cleaned, at: time)
    }

    private func run(_ loaded: LoadedEvent) async -> ReplayRecord {
        var record = ReplayRecord(file: loaded.display)
        if let problem = loaded.problem {
            record.problem = problem
            return record
        }
        guard let function = loaded.function else { return record }
        record.function = function
        let event: JSONValue
        do throws(EmulatorError) {
            (event, record.tokenSigned) = try withRecordedToken(loaded.event, function: function)
        } catch {
            record.problem = error.message
            return record
        }
        let (cleaned, time) = Self.prepare(event)
        let started = ContinuousClock.now
        let invocation = await invoke(function, cleaned, at: time)
        record.duration = ContinuousClock.now - started
        record.invocation = invocation
        if update {
            guard case .beside(let expectationURL) = loaded.expectation else {
                record.problem = "--update cannot write into a JSON-lines file; put the event in a file of its own"
                return record
            }
            do {
                try Data((Expectation(recording: invocation).json.prettyJSONString + "\n").utf8).write(
                    to: expectationURL, options: .atomic)
                record.updated = true
            } catch {
                record.problem = "cannot write \(expectationURL.lastPathComponent): \(error.localizedDescription)"
            }
            return record
        }
        // One read, no stat first: most recorded events have an expectation, many replays none.
        do throws(EmulatorError) {
            if let expected = try loaded.expected() {
                record.checked = true
                record.mismatches = Expectation(json: expected).mismatches(invocation)
            }
        } catch {
            record.problem = error.message
        }
        return record
    }

    private func invoke(_ function: FunctionName, _ event: JSONValue, at time: Timestamp?) async -> Invocation {
        var chain = stack.gateway
        chain.target = target
        chain.recordedTime = time
        chain.authorizerCache = authorizerCache
        return await chain.invoke(function, event: event, at: stack.options.now == nil ? time : nil)
    }

    /// Lambda's limit on a synchronous invocation's payload.
    package static let maximumEventSize = 6 * 1024 * 1024

    /// The event without the emulator's own fields, and the instant it was recorded.
    package static func prepare(_ event: JSONValue) -> (JSONValue, Timestamp?) {
        var cleaned = event
        cleaned.set(nil, at: ["x-inkra-function"])
        cleaned.set(nil, at: ["x-inkra-recorded-at"])
        cleaned.set(nil, at: [LoadedEvent.expectedField])
        return (cleaned, recordedTime(event))
    }

    /// `requestContext.requestTimeEpoch` / `timeEpoch` (milliseconds), else `x-inkra-recorded-at`
    /// (ISO-8601), the field the emulator reads for authorizer events, which carry no time.
    static func recordedTime(_ event: JSONValue) -> Timestamp? {
        if let time = RequestTime.received(in: event) { return time }
        if let text = event["x-inkra-recorded-at"]?.string {
            return CivilTime.instant(iso8601: text, allowingDate: true)
        }
        return nil
    }
}

/// What happened to one event of a replay.
package struct ReplayRecord: Sendable {
    /// The event file, as named in output.
    package var file: String
    /// The function it was for.
    package var function: FunctionName?
    /// The result, when the event could be run.
    package var invocation: Invocation?
    /// Why the event could not be run or checked.
    package var problem: String?
    /// Differences from the expectation.
    package var mismatches: [String] = []
    /// Whether an expectation file was compared.
    package var checked = false
    /// Whether `--update` wrote the expectation.
    package var updated = false
    /// How long the chain took.
    package var duration: Duration = .zero
    /// Why the event was not sent nor checked, though nothing is wrong with it (`replay endpoint`:
    /// an authorizer event, another user's): it counts as neither passed nor failed.
    package var skipped: String?

    /// Whether the token the event ran with was signed by replay from recorded claims
    /// (``RecordedTokenSigner``).
    package var tokenSigned = false

    /// Whether the event ran and matched its expectation (if any).
    package var ok: Bool { problem == nil && mismatches.isEmpty }
}
