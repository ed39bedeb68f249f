import EmulatorKit
import Foundation
import InkraTime
import Logging

/// `inkra-benchmarks [--quick | --scale X] [--events N] [--only handlers,replay,runtime,serve] [--output FILE]`
/// (`--only` also takes the parts of `handlers`: `rsa`, `authorizer`, `proxy`, `consume`; and
/// `gateway`, the part of `serve` that runs in this process, without the loads)
///
/// Runs every benchmark in this process (release mode: see scripts/benchmarks.sh) and prints a
/// Markdown report: medians and percentiles, with the baselines measured in the same run and the
/// ratios between them.
@main
enum BenchmarkMain {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == BareRouteServer.flag {
            guard arguments.count >= 2, let port = Int(arguments[1]) else {
                FileHandle.standardError.write(Data("usage: \(BareRouteServer.flag) PORT\n".utf8))
                exit(2)
            }
            do {
                try await BareRouteServer.run(port: port)
            } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                exit(1)
            }
            return
        }
        do {
            try await run(arguments)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Off the main actor that `main` runs on, as the code measured runs in a server: the package's
    /// async functions run on their caller's executor.
    @concurrent static func run(_ arguments: [String]) async throws {
        var scale = 1.0
        var events = 10_000
        var groups: Set<String> = ["handlers", "replay", "runtime", "serve"]
        var output: URL?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick": scale = 0.2
            case "--scale":
                guard let value = remaining.popFirst().flatMap(Double.init), value > 0 else {
                    throw BenchmarkError("--scale needs a positive number (1 is a full run, --quick is 0.2)")
                }
                scale = value
            case "--events":
                guard let value = remaining.popFirst().flatMap(Int.init), value > 0 else {
                    throw BenchmarkError("--events needs a positive number")
                }
                events = value
            case "--only":
                guard let value = remaining.popFirst() else { throw BenchmarkError("--only needs a list") }
                groups = Set(value.split(separator: ",").map(String.init))
            case "--output":
                guard let value = remaining.popFirst() else { throw BenchmarkError("--output needs a file") }
                output = URL(fileURLWithPath: value)
            default:
                throw BenchmarkError(
                    "unknown argument \(argument); usage: inkra-benchmarks [--quick | --scale X] [--events N] "
                        + "[--only handlers,replay,runtime,serve,gateway] [--output FILE]")
            }
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        #if DEBUG
            FileHandle.standardError.write(
                Data("warning: a debug build; figures are only meaningful in release\n".utf8))
        #endif
        let key = try DevelopmentKey(directory: root.appendingPathComponent("emulator/dev-keys"))
        let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        func sibling(_ name: String) -> URL? {
            let url = binaries.appendingPathComponent(name)
            return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
        }
        // The binary scripts/package-bootstrap.sh staged for the zip: the one Lambda would run.
        let staged = root.appendingPathComponent(".build/lambda/bootstrap")
        let packaged = FileManager.default.isExecutableFile(atPath: staged.path) ? staged : nil
        let report = Report()
        let handlerParts = groups.intersection(["rsa", "authorizer", "proxy", "consume"])
        if groups.contains("handlers") || !handlerParts.isEmpty {
            FileHandle.standardError.write(Data("handlers\n".utf8))
            try await HandlerBenchmarks(key: key, report: report, scale: scale).run(handlerParts)
        }
        if groups.contains("replay") {
            FileHandle.standardError.write(Data("replay\n".utf8))
            try await ReplayBenchmarks(
                key: key, report: report, eventCount: events, users: max(1, events / 5),
                emulatorBinary: sibling("inkra-emulator")
            ).run()
        }
        if groups.contains("runtime") {
            FileHandle.standardError.write(Data("runtime\n".utf8))
            try await RuntimeBenchmarks(
                report: report, scale: scale, bootstrap: packaged ?? sibling("bootstrap"),
                package: root.appendingPathComponent(".build/lambda/bootstrap.zip"),
                jwks: root.appendingPathComponent("emulator/dev-keys/dev-jwks.json")
            ).run()
            if let emulator = sibling("inkra-emulator"), let bootstrap = sibling("bootstrap") {
                try RunRuntimeBenchmarks(
                    key: key, report: report, events: events, users: max(1, events / 5), emulator: emulator,
                    bootstrap: bootstrap
                ).run()
            }
        }
        if groups.contains("serve") || groups.contains("gateway") {
            FileHandle.standardError.write(Data("serve\n".utf8))
            let benchmarks = ServeBenchmarks(
                key: key, report: report, scale: scale, emulator: sibling("inkra-emulator"))
            if groups.contains("serve") { try await benchmarks.run() } else { try await benchmarks.inProcess() }
        }
        ratios(report)
        let text = header() + "\n\n" + report.markdown + "\n"
        print(text)
        if let output { try Data(text.utf8).write(to: output, options: .atomic) }
    }

    static func ratios(_ report: Report) {
        func ratio(_ name: String, _ numerator: String, _ denominator: String) {
            guard let top = report.row(numerator)?.median, let bottom = report.row(denominator)?.median, bottom > 0
            else { return }
            report.figure(name, String(format: "%.2f×", top / bottom))
        }
        ratio(
            "warm authorizer ÷ one RSA-2048 verification", "authorizer, warm (TOKEN event)",
            "RSA-2048 verification (swift-crypto, baseline)")
        ratio(
            "replay per event ÷ direct handlers per event", "replay, in-process, per event",
            "handlers called directly, per event (authorizer + function, baseline)")
        ratio(
            "local Runtime API per invocation ÷ the same loop on a minimal C server",
            "runtime loop + local Runtime API, per invocation (echo handler)",
            "runtime loop + minimal C Runtime API, per invocation (echo handler, baseline)")
        ratio(
            "bootstrap cold start ÷ spawning /bin/true", "bootstrap cold start to first /next (authorizer)",
            "spawn and reap /bin/true (baseline)")
    }

    static func header() -> String {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let memory = Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824
        return "Measured \(CivilTime.iso8601(Timestamp.now)) on \(cores) cores, "
            + String(format: "%.0f GiB", memory) + ", \(ProcessInfo.processInfo.operatingSystemVersionString)."
    }
}
