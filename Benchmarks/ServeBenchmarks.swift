import EmulatorKit
import EmulatorServer
import Foundation
import Hummingbird
import InkraHandlers
import Logging
import ServiceLifecycle

/// `serve` under load: `POST /questions` through the local API Gateway (authorizer answer cached,
/// a full admitted request behind it) against a bare Hummingbird route in the same process, both
/// driven by `wrk` over loopback keep-alive connections.
struct ServeBenchmarks {
    let key: DevelopmentKey
    let report: Report
    let scale: Double

    /// wrk's reading of one run.
    struct LoadResult {
        var requestsPerSecond: Double
        /// Percentile → nanoseconds.
        var latency: [Int: Double]
        var failures: Int
        /// The requests wrk completed.
        var requests = 0
        /// This process's CPU time (user and system, all threads; wrk is another process) per
        /// completed request, in microseconds: the server's cost of a request, which the machine's
        /// swings in throughput disturb less.
        var cpuPerRequest: Double?
    }

    static let body = #"{"topic":"my grandmother's kitchen in Naples","length":"short"}"#

    func run() async throws {
        guard let wrk = Self.wrk() else {
            report.figure("serve under load", "skipped: wrk not found (apt-get install wrk)")
            return
        }
        let seconds = max(2, Int(10 * scale))
        try await inProcess()
        // The two loads alternate, in turn order, over several rounds: one pair of runs swings by
        // a third on this machine, and a ratio from one pair would say more about the moment than
        // about serve.
        let rounds = scale < 1 ? 1 : 3
        var pairs: [(bare: LoadResult, served: LoadResult)] = []
        for round in 0..<rounds {
            if round % 2 == 0 {
                let bare = try await bareRoute(wrk: wrk, seconds: seconds)
                pairs.append((bare, try await serve(wrk: wrk, seconds: seconds)))
            } else {
                let served = try await serve(wrk: wrk, seconds: seconds)
                pairs.append((try await bareRoute(wrk: wrk, seconds: seconds), served))
            }
        }
        let ratios = pairs.map { $0.served.requestsPerSecond / $0.bare.requestsPerSecond }
        let median = pairs.indices.sorted { ratios[$0] < ratios[$1] }[pairs.count / 2]
        let (bare, served) = pairs[median]
        for (name, result) in [("bare Hummingbird route (baseline)", bare), ("serve POST /questions", served)] {
            report.add(
                Measurement(
                    name: "\(name), latency under load",
                    samples: [50, 75, 90, 99].compactMap { result.latency[$0] }, batch: 1))
            report.figure("\(name), requests per second", String(format: "%.0f", result.requestsPerSecond))
        }
        report.figure(
            "serve POST /questions rate ÷ bare route rate (median round of \(rounds), alternating)",
            String(format: "%.2f×", ratios[median]))
        if rounds > 1 {
            report.figure(
                "the ratio in each round",
                ratios.map { String(format: "%.2f×", $0) }.joined(separator: ", "))
        }
        if let bareCPU = bare.cpuPerRequest, let servedCPU = served.cpuPerRequest {
            report.figure("bare route, server CPU per request", String(format: "%.1f µs", bareCPU))
            report.figure("serve POST /questions, server CPU per request", String(format: "%.1f µs", servedCPU))
            report.figure(
                "bare route CPU per request ÷ serve CPU per request (the same round)",
                String(format: "%.2f×", bareCPU / servedCPU))
        }
        let failures = pairs.map(\.served.failures).reduce(0, +)
        if failures > 0 { report.figure("serve non-2xx answers under load", "\(failures)") }
    }

    /// The local API Gateway's own work per request, without HTTP: event built from the request,
    /// cached authorizer answer, `generateQuestions` admitted, response read back.
    func inProcess() async throws {
        let stack = try EmulatorStack(options: try options())
        var configuration = LocalAPIGateway.Configuration()
        configuration.payload = .v1
        let gateway = LocalAPIGateway(stack: stack, configuration: configuration)
        let token = try DevelopmentTokens.mint(with: key, claims: .init(sub: "load-user", tier: "premium"), at: Date())
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
        let limits = FileManager.default.temporaryDirectory.appendingPathComponent("inkra-bench-limits.json")
        try Data(#"{"premium":{"monthly":900000000,"daily":900000000,"hourly":900000000}}"#.utf8).write(to: limits)
        var options = EmulatorOptions(clock: { Date() })
        options.developmentKey = key
        options.limitsFile = limits
        return options
    }

    /// A Hummingbird route that reads the body and answers a fixed JSON of the same size as
    /// `generateQuestions`' answer: the floor of any HTTP server work.
    func bareRoute(wrk: String, seconds: Int) async throws -> LoadResult {
        let answer = ByteBuffer(string: String(repeating: "x", count: 300))
        let router = Router()
        router.post("questions") { request, _ -> Response in
            var request = request
            _ = try await request.collectBody(upTo: 1 << 20)
            return Response(
                status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: answer))
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) },
            logger: Logger(label: "bare", factory: { _ in SwiftLogNoOpLogHandler() }))
        let group = ServiceGroup(
            services: [app], logger: Logger(label: "bare", factory: { _ in SwiftLogNoOpLogHandler() }))
        let running = Task { try await group.run() }
        guard let port = await ports.first(where: { _ in true }) else {
            throw BenchmarkError("bare route did not start")
        }
        defer { running.cancel() }
        let result = try await load(
            wrk: wrk, url: "http://127.0.0.1:\(port)/questions", token: "none", seconds: seconds)
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        return result
    }

    /// `serve` with limits no run reaches, so every request is admitted and does the full work.
    func serve(wrk: String, seconds: Int) async throws -> LoadResult {
        let stack = try EmulatorStack(options: try options())
        var configuration = ServeConfiguration.ephemeral
        configuration.accessLog = false
        configuration.dynamoDBPort = nil
        let server = try await LocalServer(
            stack: stack, configuration: configuration,
            logger: Logger(label: "serve", factory: { _ in SwiftLogNoOpLogHandler() }))
        let (ready, continuation) = AsyncStream.makeStream(of: ServeEndpoints.self)
        let running = Task { try await server.run { continuation.yield($0) } }
        guard let endpoints = await ready.first(where: { _ in true }) else {
            throw BenchmarkError("serve did not start")
        }
        let token = try DevelopmentTokens.mint(with: key, claims: .init(sub: "load-user", tier: "premium"), at: Date())
        let result = try await load(
            wrk: wrk, url: endpoints.api.absoluteString + "/questions", token: token, seconds: seconds)
        await server.shutdown()
        try await running.value
        return result
    }

    /// Runs wrk (one thread, 16 keep-alive connections) and reads its report. The wait is a
    /// termination callback, so no thread of this process spins or blocks while wrk runs.
    func load(wrk: String, url: String, token: String, seconds: Int) async throws -> LoadResult {
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
        let cpuBefore = Self.processCPUTime()
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            process.terminationHandler = { _ in finished.resume() }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                finished.resume()
            }
        }
        let cpu = Self.processCPUTime() - cpuBefore
        try output.close()
        let text = try String(contentsOf: report, encoding: .utf8)
        try? FileManager.default.removeItem(at: report)
        var result = try Self.parse(text)
        if result.requests > 0 { result.cpuPerRequest = cpu * 1e6 / Double(result.requests) }
        return result
    }

    /// This process's user and system CPU time so far, in seconds, over all its threads.
    static func processCPUTime() -> Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
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
