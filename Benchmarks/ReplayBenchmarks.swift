import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON
import InkraTime

/// `replay` over a generated workload — many users, every event through the authorizer chain —
/// against the same events handed to the handlers directly.
struct ReplayBenchmarks {
    let key: DevelopmentKey
    let report: Report
    let eventCount: Int
    let users: Int
    let emulatorBinary: URL?
    /// Seconds between two events: a quarter of a second for 10,000 events; a large workload
    /// keeps to the same 42 minutes, so its table stays the 10,000-event workload's size.
    var spacing = 0.25

    /// The kinds of event each user sends, in turn.
    static let kinds: [SampleEvents.Kind] = [.restGenerate, .httpUsage, .httpGenerate, .restUsage, .restGenerate]

    /// The workload's tokens, one per user (every fifth user premium).
    func tokens() throws -> [String] {
        try (0..<users).map { user in
            try DevelopmentTokens.mint(
                with: key,
                claims: .init(
                    sub: "user-\(user)", email: "user\(user)@example.com", tier: user % 5 == 0 ? "premium" : "free",
                    expiresIn: 86_400),
                at: Self.start)
        }
    }

    static let start = Timestamp(timeIntervalSince1970: 1_795_000_000)

    /// Event `index` of the workload, `x-inkra-function` naming its function.
    func event(_ index: Int, tokens: [String]) -> (FunctionName, JSONValue) {
        let user = index % users
        let kind = Self.kinds[(index / users) % Self.kinds.count]
        let time = Self.start.addingTimeInterval(Double(index) * spacing)
        var object =
            SampleEvents.event(kind, token: tokens[user], at: time, requestID: String(format: "req-%08d", index))
            .object ?? JSONObject()
        object["x-inkra-function"] = .string(kind.function.rawValue)
        return (kind.function, .object(object))
    }

    /// Writes the workload: `eventCount` event files.
    func writeWorkload(to folder: URL) throws -> [(FunctionName, JSONValue)] {
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let tokens = try tokens()
        var events: [(FunctionName, JSONValue)] = []
        events.reserveCapacity(eventCount)
        for index in 0..<eventCount {
            let (function, event) = self.event(index, tokens: tokens)
            try Data(event.jsonBytes).write(to: folder.appendingPathComponent(String(format: "%06d.json", index)))
            events.append((function, event))
        }
        return events
    }

    /// Writes `count` events of the workload as one JSON-lines file, without holding them.
    func writeLines(_ count: Int, to file: URL) throws {
        FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        let tokens = try tokens()
        var buffer: [UInt8] = []
        for index in 0..<count {
            buffer += self.event(index, tokens: tokens).1.jsonBytes
            buffer.append(0x0A)
            if buffer.count > 1 << 20 {
                handle.write(Data(buffer))
                buffer.removeAll(keepingCapacity: true)
            }
        }
        handle.write(Data(buffer))
    }

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-bench-replay")
        FileHandle.standardError.write(
            Data("  writing \(eventCount) events for \(users) users to \(folder.path)\n".utf8))
        let events = try writeWorkload(to: folder)
        var options = EmulatorOptions(clock: { Timestamp.now })
        options.developmentKey = key

        // In-process replay: files read, parsed, run through the chain, checked, reported.
        var statuses: [Int: Int] = [:]
        var cacheHits: [(String, Int, [Int: Int])] = []
        let sequential = try await rounds("replay, in-process, per event", options) { round, stack in
            let replayer = Replayer(stack: stack)
            let records = await replayer.replay([folder])
            if round == 0 {
                for record in records { statuses[record.invocation?.statusCode ?? 0, default: 0] += 1 }
                cacheHits.append(("300 s (template.yaml)", replayer.authorizerCache?.hits ?? 0, statuses))
            }
            return records.count
        }
        // The authorizer cache (issue #40) off, and at API Gateway's longest TTL. A user of the
        // workload calls every 500 s of recorded time, past the default 300 s: the default cache
        // answers none of them, an hour's answers four of each user's five.
        for (label, ttl) in [("off (--authorizer-cache-ttl 0)", 0.0), ("3600 s", 3600)] {
            try await rounds("replay, in-process, authorizer cache \(label), per event", options) { round, stack in
                let replayer = Replayer(stack: stack).cachingAuthorizer(for: ttl)
                let records = await replayer.replay([folder])
                if round == 0 {
                    var answers: [Int: Int] = [:]
                    for record in records { answers[record.invocation?.statusCode ?? 0, default: 0] += 1 }
                    cacheHits.append((label, replayer.authorizerCache?.hits ?? 0, answers))
                }
                return records.count
            }
        }
        report.figure(
            "replay's authorizer cache: answers from it, of \(eventCount) events",
            cacheHits.map { "\($0.0): \($0.1) (answers \(Self.tally($0.2)))" }.joined(separator: "; "))
        // The same, with --jobs 2: events of different users side by side.
        let parallel = try await rounds("replay, in-process, --jobs 2, per event (wall clock)", options) { _, stack in
            await Replayer(stack: stack).replay([folder], jobs: 2) { _, _ in }.events
        }
        report.figure(
            "replay in-process: --jobs 2 rate ÷ --jobs 1 rate",
            String(format: "%.2f×", sequential.median / parallel.median))

        // The same events, in memory, handed to the handlers directly: the authorizer on a TOKEN
        // event, its context injected by hand, then the function — on each event's recorded clock.
        var directStatuses: [Int: Int] = [:]
        try await rounds("handlers called directly, per event (authorizer + function, baseline)", options) {
            round, stack in
            for (function, event) in events {
                let answer = await Self.direct(stack, function, event)
                if round == 0 { directStatuses[answer ?? 0, default: 0] += 1 }
            }
            return events.count
        }
        // Where replay's own cost goes: reading alone (listing the folder, reading and parsing each
        // file), and the gateway chain alone on events already parsed — the floor each sets.
        var parsed: [(FunctionName, JSONValue)] = []
        try await rounds("replay's reading alone (list, read, parse), per event", options) { round, _ in
            var source = EventSource([folder])
            var count = 0
            while let loaded = source.next() {
                count += 1
                if round == 0, let function = loaded.function { parsed.append((function, loaded.event)) }
            }
            return count
        }
        try await rounds("replay's gateway chain alone (parsed events), per event", options) { _, stack in
            let replayer = Replayer(stack: stack)
            for (function, event) in parsed { _ = await replayer.replay(event: event, function: function) }
            return parsed.count
        }

        report.figure("replay workload", "\(eventCount) events, \(users) users; answers \(Self.tally(statuses))")
        // The baseline must do the work replay does: the same answers, event for event in count.
        report.figure("handlers called directly: answers", Self.tally(directStatuses))
        if directStatuses != statuses {
            FileHandle.standardError.write(
                Data(
                    "  warning: the direct baseline answered \(Self.tally(directStatuses)), replay \(Self.tally(statuses))\n"
                        .utf8))
        }

        if let emulatorBinary {
            try compareJobs(
                emulatorBinary, folder, events: eventCount, input: "the workload folder (process)",
                ratio: "\(eventCount) events")
            let large = Int(ProcessInfo.processInfo.environment["INKRA_BENCH_LARGE_EVENTS"] ?? "") ?? 0
            if large > 0 {
                let lines = folder.appendingPathExtension("jsonl")
                FileHandle.standardError.write(Data("  writing \(large) events to \(lines.path)\n".utf8))
                try ReplayBenchmarks(
                    key: key, report: report, eventCount: large, users: users, emulatorBinary: nil,
                    spacing: 2_500 / Double(large)
                ).writeLines(large, to: lines)
                try compareJobs(
                    emulatorBinary, lines, events: large, input: "\(large) events in one JSON-lines file",
                    ratio: "\(large) events, JSON lines")
                try? FileManager.default.removeItem(at: lines)
            }
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Times three rounds of `body`, each on a fresh stack built before the clock starts, and
    /// reports the time per event; `body` returns how many events it ran.
    @discardableResult
    func rounds(
        _ name: String, _ options: EmulatorOptions,
        _ body: (_ round: Int, _ stack: EmulatorStack) async throws -> Int
    ) async throws -> Measurement {
        var samples: [Double] = []
        var batch = 0
        for round in 0..<3 {
            let stack = try await EmulatorStack(options: options)
            let started = ContinuousClock.now
            batch = try await body(round, stack)
            samples.append(Harness.nanoseconds(ContinuousClock.now - started) / Double(max(batch, 1)))
        }
        let measurement = Measurement(name: name, samples: samples.sorted(), batch: batch)
        report.add(measurement)
        return measurement
    }

    /// Answers counted by status, as `8400×200, 1600×429`.
    static func tally(_ statuses: [Int: Int]) -> String {
        statuses.sorted { $0.key < $1.key }.map { "\($0.value)×\($0.key)" }.joined(separator: ", ")
    }

    /// `inkra-emulator replay` of `input` with `--jobs 1`, then `--jobs 2`: each run's figures, and
    /// the second's rate over the first's.
    func compareJobs(_ binary: URL, _ path: URL, events: Int, input: String, ratio: String) throws {
        let one = try replayProcess(binary, [path.path, "--jobs", "1"], events: events)
        let two = try replayProcess(binary, [path.path, "--jobs", "2"], events: events)
        report.figure("`inkra-emulator replay --jobs 1` of \(input)", one.text)
        report.figure("`inkra-emulator replay --jobs 2` of \(input)", two.text)
        report.figure(
            "`replay` process, --jobs 2 rate ÷ --jobs 1 rate (\(ratio))",
            String(format: "%.2f×", one.nanoseconds / two.nanoseconds))
    }

    /// One `inkra-emulator replay` process: its wall time and, under GNU time (which forks the
    /// emulator from its own small process, so its peak is the emulator's alone; see
    /// Child.peakResidentBytes for why wait4 here would not be), its peak memory.
    func replayProcess(_ binary: URL, _ arguments: [String], events: Int) throws -> (nanoseconds: Double, text: String)
    {
        let peakFile = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-bench-replay.peak")
        let timed = FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
        let started = ContinuousClock.now
        let child =
            timed
            ? try Child.spawn(
                "/usr/bin/time", ["-f", "%M", "-o", peakFile.path, binary.path, "replay"] + arguments,
                environment: ProcessInfo.processInfo.environment)
            : try Child.spawn(binary.path, ["replay"] + arguments, environment: ProcessInfo.processInfo.environment)
        let status = child.wait()
        let elapsed = Harness.nanoseconds(ContinuousClock.now - started)
        let kilobytes = (try? String(contentsOf: peakFile, encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try? FileManager.default.removeItem(at: peakFile)
        let peak = timed ? String(format: "%.1f MB", Double(kilobytes ?? 0) * 1024 / 1e6) : "not measured"
        return (
            elapsed,
            String(
                format: "exit %d, %.0f events/s, %@ per event, peak RSS %@", status, Double(events) / (elapsed / 1e9),
                human(elapsed / Double(events)), peak)
        )
    }

    /// What API Gateway and the functions do for one event, without the emulator: the
    /// authorizer on a TOKEN event, its context injected by hand, then the function, on the
    /// event's recorded clock.
    /// - Returns: the answer's status code, so the run can show it did the work replay does
    ///   (`nil` when the authorizer refused or the function failed).
    static func direct(_ stack: EmulatorStack, _ function: FunctionName, _ event: JSONValue) async -> Int? {
        guard let time = RequestTime.received(in: event) else { return nil }
        let invocation = stack.context(at: time)
        do {
            // HTTP API events carry their headers in lower case: the header is found in any case.
            let token = (try? ProxyRequest(event: event))?.header("Authorization") ?? ""
            let authorizerEvent: JSONValue = [
                "type": "TOKEN", "authorizationToken": .string(token),
                "methodArn": "arn:aws:execute-api:us-east-1:123456789012:inkra0local/prod/GET/usage",
            ]
            guard let policy = try? await stack.authorizer.handle(authorizerEvent, context: invocation),
                var object = event.object, var context = object["requestContext"]?.object
            else { return nil }
            var injected = JSONObject()
            for (name, value) in policy["context"]?.object?.pairs ?? [] {
                injected[name] = .string(value.scalarText ?? value.jsonString)
            }
            if event["version"]?.string == "2.0" {
                context["authorizer"] = ["lambda": .object(injected)]
            } else {
                injected["principalId"] = policy["principalId"]
                context["authorizer"] = .object(injected)
            }
            object["requestContext"] = .object(context)
            let answer = try? await stack.handler(for: function).handle(.object(object), context: invocation)
            return answer?["statusCode"]?.int
        }
    }
}
