import ArgumentParser
import EmulatorKit
import EmulatorServer
import Foundation
import InkraHandlers

/// `inkra-emulator`: the local emulator of the Inkra stack.
struct InkraEmulator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inkra-emulator",
        abstract: "Replay, invoke and serve the Inkra functions locally, without Docker.",
        version: InkraVersion.current,
        subcommands: [
            ReplayCommand.self, InvokeCommand.self, TokenCommand.self, GenerateEventCommand.self, UsageCommand.self,
            CreateTableCommand.self, RunRuntimeCommand.self, ServeCommand.self, ExecCommand.self, ClockCommand.self,
            AdminCommand.self,
            ImportCommand.self, LimitsCommand.self,
        ]
    )
}

/// Runs the command line with the exit statuses of docs/emulator.md: 0 success, 1 a failed function or a
/// mismatch, 2 a usage error (bad flag, unreadable event or file).
@main
enum EntryPoint {
    static func main() async {
        do {
            let spelling = LegacySpelling(Array(CommandLine.arguments.dropFirst()))
            if let notice = spelling.notice { Output.err(notice) }
            var command = try InkraEmulator.parseAsRoot(spelling.arguments)
            // A server keeps each request on its connection's thread (see EventLoopExecutor).
            if command is ServeCommand || command is ExecCommand { EventLoopExecutor.install() }
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch let failure as UsageFailure {
            Output.err("inkra-emulator: \(failure.description)")
            Foundation.exit(2)
        } catch let error as EmulatorError {
            Output.err("inkra-emulator: \(error.message)")
            Foundation.exit(2)
        } catch {
            let code = InkraEmulator.exitCode(for: error)
            let message = InkraEmulator.fullMessage(for: error)
            if code == .success {
                Output.out(message)
                Foundation.exit(0)
            }
            if !message.isEmpty { Output.err(message) }
            Foundation.exit(2)
        }
    }
}
