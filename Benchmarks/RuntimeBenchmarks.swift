import EmulatorKit
import EmulatorServer
import Foundation
import InkraJSON
import InkraTime
import LambdaRuntimeAPI
import MinimalRuntimeAPI

#if canImport(Glibc)
    import Glibc
#endif

/// The custom runtime: the client loop's cost per invocation, the real `bootstrap`'s cold start
/// and memory, and the deployment package's size.
struct RuntimeBenchmarks {
    let report: Report
    let scale: Double
    let bootstrap: URL?
    let package: URL
    let jwks: URL

    func run() async throws {
        try await loopOverhead()
        if let bootstrap {
            try coldStart(bootstrap)
            try await memory(bootstrap)
        } else {
            report.figure("bootstrap cold start", "not measured: no release `bootstrap` beside the benchmarks")
        }
        if let size = try? FileManager.default.attributesOfItem(atPath: package.path)[.size] as? Int {
            report.figure("bootstrap.zip (scripts/package-bootstrap.sh)", String(format: "%.2f MB", Double(size) / 1e6))
        } else {
            report.figure("bootstrap.zip", "not measured: run scripts/package-bootstrap.sh first")
        }
    }

    /// Invocations through the emulator's Runtime API to `RuntimeLoop` with an echo handler, on
    /// loopback, one after another — against the same loop on a minimal C server and one loopback
    /// TCP round trip, measured in the same run.
    func loopOverhead() async throws {
        let count = max(200, Int(5_000 * scale))
        let server = try await RuntimeAPIServer(functionName: "echo", clock: { Timestamp.now })
        let loop = RuntimeLoop(client: try RuntimeClient(address: server.address, now: { Timestamp.now }))
        let running = Task { try await loop.run(limit: count + 100) { _, event in event } }
        let event = Array(#"{"type":"TOKEN","authorizationToken":"Bearer x"}"#.utf8)
        for _ in 0..<100 { _ = await server.invoke(event, timeout: 30) }
        var samples: [Double] = []
        let perSample = count / 20
        for _ in 0..<20 {
            let started = ContinuousClock.now
            for _ in 0..<perSample { _ = await server.invoke(event, timeout: 30) }
            samples.append(Harness.nanoseconds(ContinuousClock.now - started) / Double(perSample))
        }
        try await running.value
        await server.shutdown()
        report.add(
            Measurement(
                name: "runtime loop + local Runtime API, per invocation (echo handler)", samples: samples.sorted(),
                batch: perSample))
        try await minimalServerLoop(perSample: perSample)
        let roundTrip = try LoopbackPingPong.roundTrip(count: 20_000)
        report.figure("loopback TCP round trip, 1 byte each way (baseline)", human(roundTrip))
    }

    /// The same loop, client and handler against Benchmarks/MinimalRuntimeAPI, a C server that
    /// answers `next` at once with a fixed event: the floor of any Runtime API on this machine.
    func minimalServerLoop(perSample: Int) async throws {
        guard let server = minimal_runtime_api_start() else {
            report.figure("runtime loop + minimal C Runtime API", "not measured: the minimal server could not listen")
            return
        }
        defer { minimal_runtime_api_stop(server) }
        let client = try RuntimeClient(address: "127.0.0.1:\(minimal_runtime_api_port(server))", now: { Timestamp.now })
        let loop = RuntimeLoop(client: client)
        try await loop.run(limit: 100) { _, event in event }
        var samples: [Double] = []
        for _ in 0..<20 {
            let started = ContinuousClock.now
            try await loop.run(limit: perSample) { _, event in event }
            samples.append(Harness.nanoseconds(ContinuousClock.now - started) / Double(perSample))
        }
        client.reconnect()
        let answered = minimal_runtime_api_responses(server)
        guard answered == 100 + 20 * perSample else {
            throw BenchmarkError("the minimal server took \(answered) responses, not \(100 + 20 * perSample)")
        }
        report.add(
            Measurement(
                name: "runtime loop + minimal C Runtime API, per invocation (echo handler, baseline)",
                samples: samples.sorted(), batch: perSample))
    }

    func environment(_ handler: String, _ address: String) -> [String: String] {
        [
            "AWS_LAMBDA_RUNTIME_API": address, "_HANDLER": handler, "INKRA_STORE": "memory",
            "COGNITO_USER_POOL_ID": "us-east-1_InkraLocal", "COGNITO_REGION": "us-east-1",
            "INKRA_JWKS_FILE": jwks.path, "PATH": "/usr/bin:/bin",
        ]
    }

    /// From `posix_spawn` to the first `GET /2018-06-01/runtime/invocation/next` on the socket;
    /// the floor is spawning `/bin/true` and reaping it.
    func coldStart(_ bootstrap: URL) throws {
        for handler in ["authorizer", "generateQuestions"] {
            var samples: [Double] = []
            for _ in 0..<max(5, Int(30 * scale)) {
                let listener = try FirstRequestListener()
                let started = ContinuousClock.now
                let child = try Child.spawn(
                    bootstrap.path, [], environment: environment(handler, "127.0.0.1:\(listener.port)"))
                let arrived = listener.waitForRequest(startingWith: "GET /2018-06-01/runtime/invocation/next")
                samples.append(Harness.nanoseconds(arrived - started))
                child.signal(SIGKILL)
                child.wait()
            }
            report.add(
                Measurement(
                    name: "bootstrap cold start to first /next (\(handler))", samples: samples.sorted(), batch: 1))
        }
        var spawns: [Double] = []
        for _ in 0..<max(5, Int(30 * scale)) {
            let started = ContinuousClock.now
            try Child.spawn("/bin/true", [], environment: [:]).wait()
            spawns.append(Harness.nanoseconds(ContinuousClock.now - started))
        }
        report.add(Measurement(name: "spawn and reap /bin/true (baseline)", samples: spawns.sorted(), batch: 1))
    }

    /// Peak resident memory of `bootstrap` serving checkUsage after many invocations, and the time
    /// each invocation takes through the local Runtime API (the runtime's own client included).
    func memory(_ bootstrap: URL) async throws {
        let server = try await RuntimeAPIServer(functionName: "checkUsage", clock: { Timestamp.now })
        let child = try Child.spawn(bootstrap.path, [], environment: environment("checkUsage", server.address))
        let count = max(200, Int(2_000 * scale))
        var ok = 0
        var samples: [Double] = []
        let perSample = count / 20
        for batch in 0..<20 {
            let events = (0..<perSample).map {
                HandlerBenchmarks.authorizedEvent(
                    .restUsage, user: "user-\((batch * perSample + $0) % 100)", at: Timestamp.now
                )
                .jsonBytes
            }
            let started = ContinuousClock.now
            for event in events {
                if case .response = await server.invoke(event, timeout: 30) { ok += 1 }
            }
            samples.append(Harness.nanoseconds(ContinuousClock.now - started) / Double(perSample))
        }
        report.add(
            Measurement(
                name: "bootstrap + local Runtime API, per invocation (checkUsage)", samples: samples.sorted(),
                batch: perSample))
        let peak = child.peakResidentBytes() ?? 0
        child.signal(SIGTERM)
        child.wait()
        await server.shutdown()
        report.figure(
            "bootstrap peak RSS after \(count) checkUsage invocations (\(ok) answered)",
            String(format: "%.1f MB", Double(peak) / 1e6))
    }
}
