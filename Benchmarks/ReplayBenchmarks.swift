import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON

/// `replay` over a generated workload — many users, every event through the authorizer chain —
/// against the same events handed to the handlers directly.
struct ReplayBenchmarks {
    let key: DevelopmentKey
    let report: Report
    let eventCount: Int
    let users: Int
    let emulatorBinary: URL?

    /// The kinds of event each user sends, in turn.
    static let kinds: [SampleEvents.Kind] = [.restGenerate, .httpUsage, .httpGenerate, .restUsage, .restGenerate]

    /// Writes the workload: `eventCount` events, `x-inkra-function` naming each one's function.
    func writeWorkload(to folder: URL) throws -> [(FunctionName, JSONValue)] {
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        var tokens: [String] = []
        for user in 0..<users {
            let tier = user % 5 == 0 ? "premium" : "free"
            tokens.append(
                try DevelopmentTokens.mint(
                    with: key,
                    claims: .init(sub: "user-\(user)", email: "user\(user)@example.com", tier: tier, expiresIn: 86_400),
                    at: start))
        }
        var events: [(FunctionName, JSONValue)] = []
        events.reserveCapacity(eventCount)
        for index in 0..<eventCount {
            let user = index % users
            let kind = Self.kinds[(index / users) % Self.kinds.count]
            let time = start.addingTimeInterval(Double(index) * 0.25)
            var object =
                SampleEvents.event(
                    kind, token: tokens[user], at: time, requestID: String(format: "req-%08d", index)
                ).object ?? JSONObject()
            object["x-inkra-function"] = .string(kind.function.rawValue)
            let event = JSONValue.object(object)
            try Data(event.jsonBytes).write(to: folder.appendingPathComponent(String(format: "%06d.json", index)))
            events.append((kind.function, event))
        }
        return events
    }

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-bench-replay")
        FileHandle.standardError.write(
            Data("  writing \(eventCount) events for \(users) users to \(folder.path)\n".utf8))
        let events = try writeWorkload(to: folder)
        var options = EmulatorOptions(clock: { Date() })
        options.developmentKey = key

        // In-process replay: files read, parsed, run through the chain, checked, reported.
        var replayTimes: [Double] = []
        var statuses: [Int: Int] = [:]
        for round in 0..<3 {
            let stack = try EmulatorStack(options: options)
            let started = ContinuousClock.now
            let records = await Replayer(stack: stack).replay([folder])
            replayTimes.append(Harness.nanoseconds(ContinuousClock.now - started) / Double(records.count))
            if round == 0 {
                for record in records { statuses[record.invocation?.statusCode ?? 0, default: 0] += 1 }
            }
        }
        report.add(Measurement(name: "replay, in-process, per event", samples: replayTimes.sorted(), batch: eventCount))

        // The same events, in memory, handed to the handlers directly: the authorizer on a TOKEN
        // event, its context injected by hand, then the function — on each event's recorded clock.
        var directTimes: [Double] = []
        for _ in 0..<3 {
            let stack = try EmulatorStack(options: options)
            let started = ContinuousClock.now
            for (function, event) in events { await Self.direct(stack, function, event) }
            directTimes.append(Harness.nanoseconds(ContinuousClock.now - started) / Double(events.count))
        }
        report.add(
            Measurement(
                name: "handlers called directly, per event (authorizer + function, baseline)",
                samples: directTimes.sorted(), batch: eventCount))
        let summary = statuses.sorted { $0.key < $1.key }.map { "\($0.value)×\($0.key)" }.joined(separator: ", ")
        report.figure("replay workload", "\(eventCount) events, \(users) users; answers \(summary)")

        if let emulatorBinary {
            // GNU time forks the emulator from its own small process, so its peak is the emulator's
            // alone (see Child.peakResidentBytes for why wait4 here would not be).
            let peakFile = folder.appendingPathExtension("peak")
            let timed = FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
            let started = ContinuousClock.now
            let child =
                timed
                ? try Child.spawn(
                    "/usr/bin/time", ["-f", "%M", "-o", peakFile.path, emulatorBinary.path, "replay", folder.path],
                    environment: ProcessInfo.processInfo.environment)
                : try Child.spawn(
                    emulatorBinary.path, ["replay", folder.path], environment: ProcessInfo.processInfo.environment)
            let status = child.wait()
            let elapsed = Harness.nanoseconds(ContinuousClock.now - started)
            let kilobytes = (try? String(contentsOf: peakFile, encoding: .utf8))
                .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            let peak = Double(kilobytes ?? 0) * 1024
            try? FileManager.default.removeItem(at: peakFile)
            report.figure(
                "`inkra-emulator replay` of the workload (process, exit \(status))",
                String(
                    format: "%.0f events/s, %@ per event, peak RSS %@", Double(eventCount) / (elapsed / 1e9),
                    human(elapsed / Double(eventCount)), timed ? String(format: "%.1f MB", peak / 1e6) : "not measured")
            )
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// What API Gateway and the functions do for one event, without the emulator.
    static func direct(_ stack: EmulatorStack, _ function: FunctionName, _ event: JSONValue) async {
        guard let time = InvocationClock.requestTime(of: event) else { return }
        await InvocationClock.$instant.withValue(time) {
            let token = event["headers"]?["Authorization"]?.string ?? ""
            let authorizerEvent: JSONValue = [
                "type": "TOKEN", "authorizationToken": .string(token),
                "methodArn": "arn:aws:execute-api:us-east-1:123456789012:inkra0local/prod/GET/usage",
            ]
            guard let policy = try? await stack.authorizer.handle(authorizerEvent),
                var object = event.object, var context = object["requestContext"]?.object
            else { return }
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
            _ = try? await stack.handler(for: function).handle(.object(object))
        }
    }
}
