import EmulatorKit
import EmulatorServer
import Foundation
import Hummingbird
import InkraHandlers
import InkraTime
import Logging
import ServiceLifecycle

/// `serve` under load: `POST /questions` through the `inkra-emulator serve` binary (authorizer
/// answer cached, a full admitted request behind it) against a bare Hummingbird route, each server
/// a process of its own, driven by `wrk` over loopback keep-alive connections.
struct ServeBenchmarks {
    let key: DevelopmentKey
    let report: Report
    let scale: Double
    /// The `inkra-emulator` binary, built beside the benchmarks.
    let emulator: URL?

    /// wrk's reading of one run.
    struct LoadResult {
        var requestsPerSecond: Double
        /// Percentile → nanoseconds.
        var latency: [Int: Double]
        var failures: Int
        /// The requests wrk completed.
        var requests = 0
        /// The server process's CPU time (user and system, all its threads; wrk is another
        /// process) per completed request, in microseconds: the server's cost of a request, which
        /// the machine's swings in throughput disturb less.
        var cpuPerRequest: Double?
    }

    /// The two servers of a round.
    enum Server: CaseIterable {
        case bare, serve

        var name: String {
            switch self {
            case .bare: "bare Hummingbird route (baseline)"
            case .serve: "serve POST /questions"
            }
        }
    }

    /// What the two servers of one round measured.
    struct Round {
        private var results: [Server: LoadResult] = [:]

        subscript(server: Server) -> LoadResult {
            get { results[server] ?? LoadResult(requestsPerSecond: 0, latency: [:], failures: 0) }
            set { results[server] = newValue }
        }
    }

    static let body = #"{"topic":"my grandmother's kitchen in Naples","length":"short"}"#

    func run() async throws {
        guard let wrk = Self.wrk() else {
            report.figure("serve under load", "skipped: wrk not found (apt-get install wrk)")
            return
        }
        guard let emulator else {
            report.figure(
                "serve under load", "skipped: no inkra-emulator beside the benchmarks (use scripts/benchmarks.sh)")
            return
        }
        let seconds = max(2, Int(10 * scale))
        try await inProcess()
        // The loads take turns, in an order that rotates from round to round: one run swings by a
        // third on this machine, and a ratio from one round would say more about the moment than
        // about serve.
        let rounds = scale < 1 ? 1 : 5
        var results: [Round] = []
        for number in 0..<rounds {
            var round = Round()
            for offset in 0..<Server.allCases.count {
                let server = Server.allCases[(number + offset) % Server.allCases.count]
                round[server] = try await load(server, emulator: emulator, wrk: wrk, seconds: seconds)
            }
            results.append(round)
        }
        let ratios = results.map { $0[.serve].requestsPerSecond / $0[.bare].requestsPerSecond }
        let median = results.indices.sorted { ratios[$0] < ratios[$1] }[results.count / 2]
        let round = results[median]
        for server in Server.allCases {
            let result = round[server]
            // wrk's own percentiles, as they are: a table row would take them for samples.
            report.figure(
                "\(server.name), latency under load, p50 / p75 / p90 / p99",
                [50, 75, 90, 99].map { result.latency[$0].map(human) ?? "–" }.joined(separator: " / "))
            report.figure("\(server.name), requests per second", String(format: "%.0f", result.requestsPerSecond))
            if let cpu = result.cpuPerRequest {
                report.figure("\(server.name), server CPU per request", String(format: "%.1f µs", cpu))
            }
        }
        report.figure(
            "serve POST /questions rate ÷ the bare route's rate (median round of \(rounds))",
            String(format: "%.2f×", ratios[median]))
        if rounds > 1 {
            report.figure(
                "the ratio in each round", ratios.map { String(format: "%.2f×", $0) }.joined(separator: ", "))
        }
        if let bareCPU = round[.bare].cpuPerRequest, let servedCPU = round[.serve].cpuPerRequest {
            report.figure(
                "the bare route's CPU per request ÷ serve's (the same round)",
                String(format: "%.2f×", bareCPU / servedCPU))
        }
        let failures = results.map { $0[.serve].failures }.reduce(0, +)
        if failures > 0 { report.figure("serve non-2xx answers under load", "\(failures)") }
    }

    /// Starts one server in a process of its own, loads it, and stops it.
    func load(_ server: Server, emulator: URL, wrk: String, seconds: Int) async throws -> LoadResult {
        let port = try Loopback.freePort()
        let child: Child
        var token = "none"
        switch server {
        case .bare:
            let benchmarks = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            child = try Child.spawn(
                benchmarks.path, [BareRouteServer.flag, "\(port)"], environment: ProcessInfo.processInfo.environment)
        case .serve:
            child = try Child.spawn(
                emulator.path,
                [
                    "serve", "--port", "\(port)", "--lambda-port", "0", "--runtime-api-port", "0",
                    "--dynamodb-port", "0", "--no-access-log", "--no-throttle", "--limits", try limitsFile().path,
                ],
                environment: ProcessInfo.processInfo.environment)
            token = try DevelopmentTokens.mint(
                with: key, claims: .init(sub: "load-user", tier: "premium"), at: Timestamp.now)
        }
        defer { child.stop() }
        try await Loopback.waitForListener(child, port: port, seconds: 30)
        let url = "http://127.0.0.1:\(port)/questions"
        // A second of warm-up, left out of the figures.
        _ = try await run(wrk: wrk, url: url, token: token, seconds: 1, cpu: child.cpuSeconds)
        let result = try await run(wrk: wrk, url: url, token: token, seconds: seconds, cpu: child.cpuSeconds)
        guard result.failures < result.requests else {
            throw BenchmarkError("\(server.name) answered no request with 2xx")
        }
        return result
    }

    /// The local API Gateway's own work per request, without HTTP: event built from the request,
    /// cached authorizer answer, `generateQuestions` admitted, response read back.
    func inProcess() async throws {
        let stack = try await EmulatorStack(options: try options())
        var configuration = LocalAPIGateway.Configuration()
        configuration.payload = .v1
        let gateway = LocalAPIGateway(stack: stack, configuration: configuration)
        let token = try DevelopmentTokens.mint(
            with: key, claims: .init(sub: "load-user", tier: "premium"), at: Timestamp.now)
        let request = LocalHTTPRequest(
            method: "POST", path: "/questions",
            headers: [
                ("Host", "127.0.0.1:3000"), ("Content-Type", "application/json"), ("Authorization", "Bearer \(token)"),
                ("User-Agent", "wrk"),
            ],
            body: Array(Self.body.utf8))
        report.add(
            try await Harness.measure(
                "serve's API Gateway in-process, POST /questions (cached authorizer)", batch: 200,
                samples: max(5, Int(30 * scale))
            ) {
                let served = await gateway.respond(request)
                guard served.response.status == 200 else { throw BenchmarkError("answered \(served.response.status)") }
            })
    }

    func options() throws -> EmulatorOptions {
        var options = EmulatorOptions(clock: { Timestamp.now })
        options.developmentKey = key
        options.limitsFile = try limitsFile()
        return options
    }

    /// Limits no run reaches, so every request is admitted and does the full work.
    func limitsFile() throws -> URL {
        let limits = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-bench-limits.json")
        try Data(#"{"premium":{"monthly":900000000,"daily":900000000,"hourly":900000000}}"#.utf8).write(to: limits)
        return limits
    }

    /// Runs wrk (one thread, 16 keep-alive connections) and reads its report, with the server's
    /// CPU time over the run. The wait is a termination callback, so no thread of this process
    /// spins or blocks while wrk runs.
    func run(wrk: String, url: String, token: String, seconds: Int, cpu: () -> Double?) async throws -> LoadResult {
        let directory = FileManager.default.temporaryDirectory
        let script = directory.appendingPathComponent("inkra-bench-post.lua")
        let report = directory.appendingPathComponent("inkra-bench-wrk-\(UUID().uuidString).txt")
        let escaped = Self.body.replacingOccurrences(of: "\"", with: "\\\"")
        try Data(
            """
            wrk.method = "POST"
            wrk.body = "\(escaped)"
            wrk.headers["Content-Type"] = "application/json"
            wrk.headers["Authorization"] = "Bearer \(token)"
            """.utf8
        ).write(to: script)
        _ = FileManager.default.createFile(atPath: report.path, contents: nil)
        let output = try FileHandle(forWritingTo: report)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: wrk)
        process.arguments = ["-t1", "-c16", "-d\(seconds)s", "--latency", "-s", script.path, url]
        process.standardOutput = output
        let cpuBefore = cpu()
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            process.terminationHandler = { _ in finished.resume() }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                finished.resume()
            }
        }
        let cpuAfter = cpu()
        try output.close()
        let text = try String(contentsOf: report, encoding: .utf8)
        try? FileManager.default.removeItem(at: report)
        var result = try Self.parse(text)
        if result.requests > 0, let cpuBefore, let cpuAfter {
            result.cpuPerRequest = (cpuAfter - cpuBefore) * 1e6 / Double(result.requests)
        }
        return result
    }

    /// Reads `Requests/sec:`, the latency distribution and `Non-2xx or 3xx responses:`.
    static func parse(_ text: String) throws -> LoadResult {
        var result = LoadResult(requestsPerSecond: 0, latency: [:], failures: 0)
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if line.hasPrefix("Requests/sec:"), let value = fields.last.flatMap({ Double($0) }) {
                result.requestsPerSecond = value
            } else if line.contains(" requests in "), let value = fields.first.flatMap({ Int($0) }) {
                result.requests = value
            } else if line.contains("Non-2xx or 3xx responses:"), let value = fields.last.flatMap({ Int($0) }) {
                result.failures = value
            } else if fields.count == 2, fields[0].hasSuffix("%"), let percent = Int(fields[0].dropLast()),
                let time = duration(fields[1])
            {
                result.latency[percent] = time
            }
        }
        guard result.requestsPerSecond > 0 else { throw BenchmarkError("wrk reported nothing:\n\(text)") }
        return result
    }

    /// `290.00us`, `1.23ms`, `2.00s` in nanoseconds.
    static func duration(_ text: Substring) -> Double? {
        for (unit, scale) in [("us", 1e3), ("ms", 1e6), ("s", 1e9)] where text.hasSuffix(unit) {
            return Double(text.dropLast(unit.count)).map { $0 * scale }
        }
        return nil
    }

    static func wrk() -> String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        return paths.map { "\($0)/wrk" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
