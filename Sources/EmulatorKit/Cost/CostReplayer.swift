import Foundation
import InkraAuth
import InkraHandlers
import InkraJSON
import InkraUsage
import SingleTable

/// Replays recorded traffic, in turn, on a table of its own that counts DynamoDB's request units
/// (``CountingTable``) and a logger that counts the bytes of the functions' log lines
/// (``LogBytes``), and measures what each event used of what AWS bills (``TrafficUsage``).
///
/// Events run one at a time, so each event's units, log bytes and durations are its own; the
/// authorizer's answers are cached as `replay` caches them, imported events get the tokens
/// `replay` signs from recorded claims (``Replayer/recordedTokens``), and a recorded context's
/// quota is moved to the limits replayed under (``RecordedQuota``), as the what-if report does.
package struct CostReplayer: Sendable {
    /// The stack the events run on.
    package let stack: EmulatorStack
    /// Its table, counting.
    package let table: CountingTable
    /// Its functions' log lines, counted.
    package let logs: LogBytes
    /// Moves recorded quotas to the limits replayed under.
    package var quota: RecordedQuota
    /// Runs each event through the chain, with the authorizer cache.
    package var replayer: Replayer

    /// A cost replayer on a fresh in-memory table.
    /// - Parameters:
    ///   - options: the stack's options; its state file and DynamoDB endpoint are not used.
    ///   - items: the table's starting items (the state the replay starts from).
    ///   - limitsFile: the limits to replay under (`nil`: the default limits).
    ///   - flag: the flag that named `limitsFile`, for errors.
    ///   - recordedLimits: the limits the traffic was recorded under.
    /// - Throws: ``EmulatorError`` naming the flag and the limits file at fault.
    package init(
        options: EmulatorOptions, items: [Item] = [], limitsFile: URL?, flag: String = "--limits",
        recordedLimits: TierLimits = TierLimits()
    ) async throws(EmulatorError) {
        let limits = try WhatIfReplayer.limits(limitsFile, flag: flag)
        var options = options
        options.limitsFile = limitsFile
        options.stateFile = nil
        options.dynamoDBEndpoint = nil
        table = CountingTable(
            InMemoryTable(schema: .singleTable(named: options.tableName), items: items, now: options.clock))
        logs = LogBytes()
        stack = try await EmulatorStack(options: options, table: table, logger: logs.logger())
        quota = RecordedQuota(recorded: recordedLimits, replayed: limits)
        replayer = Replayer(stack: stack)
    }

    /// A cost replayer on a copy of a stack's in-memory table (its state file's or scan's items),
    /// with the stack's options; the stack's own table is not touched.
    /// - Throws: ``EmulatorError`` naming the flag and the limits file at fault.
    package init(
        copying stack: EmulatorStack, limitsFile: URL?, flag: String, recordedLimits: TierLimits
    ) async throws(EmulatorError) {
        try await self.init(
            options: stack.options, items: stack.memoryTable?.snapshot() ?? [], limitsFile: limitsFile, flag: flag,
            recordedLimits: recordedLimits)
    }

    /// Replays files, folders and JSON-lines files in turn and measures what they used.
    /// - Parameters:
    ///   - paths: event files, folders and JSON-lines files.
    ///   - progress: called as events are replayed with how many have been, and the total once known.
    /// - Returns: the usage, in total, by function and by tier.
    package func meter(_ paths: [URL], progress: (_ position: Int, _ total: Int?) -> Void = { _, _ in }) async
        -> TrafficUsage
    {
        var usage = TrafficUsage()
        var position = 0
        await ReplayLanes(jobs: 1).run(EventSource(paths)) { event in
            await meter(event)
        } deliver: { results, total in
            for result in results {
                position += 1
                switch result {
                case .event(let event): usage.add(event)
                case .problem(let problem): usage.problems.append(problem)
                }
            }
            progress(position, total)
        }
        usage.storedBytes = storedBytes()
        return usage
    }

    /// What the table holds once the traffic is replayed, in DynamoDB's storage bytes: each item's
    /// size plus 100 bytes, twice for an item GSI1 projects (its index copy).
    func storedBytes() -> Int {
        ((table.table as? InMemoryTable)?.snapshot() ?? []).reduce(0) { sum, item in
            let bytes = ItemSize.of(item) + 100
            return sum + (item[table.indexKey.partition] == nil ? bytes : 2 * bytes)
        }
    }

    private enum Metered: Sendable {
        case event(MeteredEvent)
        case problem(WhatIfReport.Problem)
    }

    private func meter(_ loaded: LoadedEvent) async -> Metered {
        if let problem = loaded.problem {
            return .problem(WhatIfReport.Problem(file: loaded.display, problem: problem))
        }
        guard let function = loaded.function else {
            return .problem(WhatIfReport.Problem(file: loaded.display, problem: "no function"))
        }
        let event: JSONValue
        do throws(EmulatorError) {
            event = try replayer.withRecordedToken(loaded.event, function: function).event
        } catch {
            return .problem(WhatIfReport.Problem(file: loaded.display, problem: error.message))
        }
        let moved = quota.moving(event)
        let (unitsBefore, logsBefore) = (table.consumed, logs.count)
        let invocation = await replayer.replay(event: moved, function: function)
        let (unitsAfter, logsAfter) = (table.consumed, logs.count)
        let (prepared, recordedAt) = Replayer.prepare(moved)
        var metered = Self.metered(
            file: loaded.display, function: function, event: prepared, invocation: invocation,
            units: ConsumedUnits(
                write: unitsAfter.write - unitsBefore.write,
                indexWrite: unitsAfter.indexWrite - unitsBefore.indexWrite,
                read: unitsAfter.read - unitsBefore.read),
            logBytes: logsAfter - logsBefore)
        metered.recordedAt = recordedAt
        return .event(metered)
    }

    /// What one event used, from its invocation and what the table and the logger counted
    /// meanwhile.
    ///
    /// - API Gateway charges a request that reached its function or its request validator, not one
    ///   it refused for authorization (no token, the authorizer's refusal or denial): "Requests are
    ///   not charged for authorization and authentication failures" (Amazon API Gateway pricing,
    ///   https://aws.amazon.com/api-gateway/pricing/). An HTTP API request is metered in 512 KB
    ///   steps of request and response (bodies counted here; headers are not).
    /// - Lambda charges every invocation that ran: the function's, and the authorizer's when the
    ///   cache did not answer; each duration rounded up to the millisecond.
    /// - An event for the authorizer alone, or for `repairCharges` (its schedule), is no API request.
    static func metered(
        file: String, function: FunctionName, event: JSONValue, invocation: Invocation, units: ConsumedUnits,
        logBytes: Int
    ) -> MeteredEvent {
        var usage = Usage()
        usage.writeUnits = units.write
        usage.readHalfUnits = Int((units.read * 2).rounded())
        usage.logBytes = logBytes
        if let duration = invocation.duration {
            usage.invocations[function] = Usage.Invocations(count: 1, billedMilliseconds: billedMilliseconds(duration))
        }
        if function != .authorizer, let duration = invocation.authorizer?.duration {
            usage.invocations[.authorizer] = Usage.Invocations(
                count: 1, billedMilliseconds: billedMilliseconds(duration))
        }
        let throughGateway = function != .authorizer && function != .repairCharges
        let proxy = throughGateway ? try? ProxyRequest(event: event) : nil
        if let proxy, invocation.duration != nil || invocation.bodyRefused {
            switch proxy.version {
            case .v1:
                usage.restRequests = 1
            case .v2:
                let request = (try? proxy.bodyBytes())??.count ?? 0
                let response = invocation.json["body"]?.string?.utf8.count ?? 0
                usage.httpRequests = max(1, (request + response + httpStep - 1) / httpStep)
            }
        }
        if function == .generateQuestions && invocation.statusCode == 200 { usage.answeredCalls = 1 }
        let identity: CallerIdentity?
        if function == .authorizer, case .success(let answer) = invocation.outcome {
            identity = CallerIdentity(authorizer: answer["context"]?.object)
        } else {
            identity = MeteredCall.identity(event: event, invocation: invocation)
        }
        var metered = MeteredEvent(
            file: file, function: function, tier: identity?.tier.rawValue ?? "unknown", userID: identity?.userID,
            usage: usage)
        metered.carriedAuthorizerAnswer = proxy != nil && invocation.authorizer == nil && invocation.duration != nil
        metered.cachedAuthorizerAnswer = invocation.authorizer?.cached == true
        if function == .generateQuestions {
            let admission = Admission(invocation)
            metered.call = MeteredCall(file: file, event: event, recorded: admission, invocation: invocation)
        }
        return metered
    }

    /// An HTTP API's metering step: 512 KB.
    static let httpStep = 512 * 1024

    /// A duration as Lambda bills it: rounded up to the millisecond (at least 1).
    package static func billedMilliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let perMillisecond: Int64 = 1_000_000_000_000_000
        return max(1, Int(seconds * 1000 + (attoseconds + perMillisecond - 1) / perMillisecond))
    }
}
