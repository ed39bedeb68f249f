import Foundation
import InkraTestSupport
import Testing

/// `run-runtime --debug`: the built `bootstrap` under Debian's `gdbserver`, a real `gdb` attached
/// over the remote protocol, a breakpoint in a handler hit by a replayed event, a frame read, and
/// the event answered once the debugger lets it go.
@Suite("run-runtime --debug: a real debugger on the runtime (spawned)")
struct RunRuntimeDebugTests {
    /// `name` on PATH, or `nil`.
    static func onPath(_ name: String) -> URL? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    static let debuggers = (gdb: onPath("gdb"), server: onPath("gdbserver"))

    /// The line of `CheckUsage.handle`'s body, where the breakpoint goes.
    static func handlerLine() throws -> Int {
        let source = ChildProcess.repositoryRoot.appendingPathComponent(
            "Sources/InkraHandlers/Functions/CheckUsage.swift")
        let lines = try String(contentsOf: source, encoding: .utf8).components(separatedBy: "\n")
        let declaration = try #require(lines.firstIndex { $0.contains("public func handle(") })
        return declaration + 2  // the line after the declaration, counted from 1
    }

    @Test(
        "A breakpoint in checkUsage's handler is hit by the replayed event, its frame read, and the event passes",
        .enabled(
            if: debuggers.gdb != nil && debuggers.server != nil,
            "needs gdb and gdbserver (apt-get install gdb gdbserver)"),
        .timeLimit(.minutes(10)))
    func breakpoint() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("debug-\(UUID().uuidString)")
        let events = folder.appendingPathComponent("checkUsage")
        try FileManager.default.createDirectory(at: events, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for suffix in ["json", "expected.json"] {
            try FileManager.default.copyItem(
                at: ChildProcess.repositoryRoot.appendingPathComponent("events/checkUsage/01-rest-new-user.\(suffix)"),
                to: events.appendingPathComponent("01-rest-new-user.\(suffix)"))
        }
        let port = try #require(LoopbackPort.free())
        let bootstrap = ChildProcess.built("bootstrap")
        let replay = try RunningChild(
            ChildProcess.built("inkra-emulator"),
            [
                "run-runtime", bootstrap.path, "--function", "checkUsage", events.path, "--debug", "--debug-port",
                String(port),
            ], includingStandardError: true)
        guard await replay.line(containing: "Listening on port \(port)") != nil else {
            _ = await replay.stop(with: SIGKILL)
            Issue.record("the runtime did not wait for a debugger: \(replay.lines)")
            return
        }
        #expect(replay.lines.contains { $0.contains("gdb -ex 'target remote 127.0.0.1:\(port)'") })
        let line = try Self.handlerLine()
        let gdb = try await ChildProcess.run(
            try #require(Self.debuggers.gdb),
            [
                "-batch", "-iex", "set sysroot /", "-ex", "target remote 127.0.0.1:\(port)",
                "-ex", "break CheckUsage.swift:\(line)", "-ex", "continue", "-ex", "bt 1", "-ex", "delete",
                "-ex", "continue", bootstrap.path,
            ])
        #expect(gdb.standardOutput.contains("hit Breakpoint 1"), "\(gdb.standardOutput)\n\(gdb.standardError)")
        #expect(gdb.standardOutput.contains("CheckUsage.swift:\(line)"))
        // The frame: the handler's (mangled) name, the event it was given.
        #expect(gdb.standardOutput.contains("#0  ") && gdb.standardOutput.contains("10CheckUsageV6handle"))
        #expect(gdb.standardOutput.contains("event="))
        // Let go, the event is answered and passes; the runtime then stops, and the debugger with it.
        #expect(await replay.line(containing: "1 events: 1 passed, 0 failed") != nil, "\(replay.lines)")
        #expect(await replay.stop(with: 0) == 0)
    }

    @Test(
        "serve --debug starts --bootstrap under the debug server, gdb attaches to it; --debug alone is refused",
        .enabled(
            if: debuggers.gdb != nil && debuggers.server != nil,
            "needs gdb and gdbserver (apt-get install gdb gdbserver)"))
    func serveDebug() async throws {
        let port = try #require(LoopbackPort.free())
        let bootstrap = ChildProcess.built("bootstrap")
        let result = try await ChildProcess.run(
            ChildProcess.built("inkra-emulator"),
            [
                "exec", "--no-cognito", "--no-console", "--bootstrap", bootstrap.path, "--runtime-function",
                "checkUsage", "--debug", "--debug-port", String(port), "--", "gdb", "-batch", "-iex", "set sysroot /",
                "-ex", "target remote 127.0.0.1:\(port)", "-ex", "info inferiors", "-ex", "kill", bootstrap.path,
            ])
        #expect(result.status == 0, "\(result.standardError)")
        // A debugger attached to the runtime serve started, and found it stopped at its first instruction.
        #expect(result.standardOutput.contains("in _start ()"), "\(result.standardOutput)")
        #expect(
            result.standardOutput.contains("(remote 127.0.0.1:\(port)) \(bootstrap.resolvingSymlinksInPath().path)"))
        #expect(result.standardOutput.contains("killed]"))
        #expect(result.standardError.contains("the runtime waits for a debugger on 127.0.0.1:\(port) (gdbserver)"))
        #expect(result.standardError.contains("gdb -ex 'target remote 127.0.0.1:\(port)' \(bootstrap.path)"))
        #expect(result.standardError.contains("Listening on port \(port)"), "\(result.standardError)")
        let alone = try await ChildProcess.run(ChildProcess.built("inkra-emulator"), ["serve", "--debug"])
        #expect(alone.status == 2)
        #expect(alone.standardError.contains("--debug debugs the runtime --bootstrap starts"))
    }

    @Test("--debug with no debug server to be found is refused, saying what to install")
    func noDebugServer() async throws {
        let result = try await ChildProcess.run(
            ChildProcess.built("inkra-emulator"),
            ["run-runtime", ChildProcess.built("bootstrap").path, "--function", "checkUsage", "--debug"],
            environment: ["PATH": "/nonexistent"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("--debug needs gdbserver (apt-get install gdbserver)"))
    }
}
