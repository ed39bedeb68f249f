import ArgumentParser
import EmulatorKit
import Foundation
import InkraAuth
import InkraHandlers
import InkraTime
import InkraUsage
import Logging
import Testing

@testable import inkra_emulator

/// The command line's options as types: ArgumentParser parses each value once, where it reads the
/// option, and refuses a bad one with a message naming the option and what it accepts. Parsed in
/// process (`Command.parse`), as `inkra-emulator` parses its arguments.
@Suite("Typed command-line options")
struct CommandArgumentTests {
    /// The message ArgumentParser prints for `arguments` refused by `command`, or a recorded issue
    /// naming what was parsed instead.
    static func refusal<Command: ParsableCommand>(
        _ command: Command.Type, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) -> String {
        do {
            let parsed = try command.parse(arguments)
            Issue.record("\(arguments) parsed as \(parsed); expected a refusal", sourceLocation: sourceLocation)
            return ""
        } catch {
            return command.message(for: error)
        }
    }

    @Test("admin reset --window takes month, day or hour and names them when refused")
    func window() throws {
        let parsed = try AdminCommand.Reset.parse(["ada", "--window", "hour", "--state", "/tmp/state.json"])
        #expect(parsed.window.value == .hour)
        #expect(
            Self.refusal(AdminCommand.Reset.self, ["ada", "--window", "week", "--state", "/tmp/state.json"])
                == "The value 'week' is invalid for '--window <window>'. "
                + "Please provide one of 'month', 'day' or 'hour'.")
    }

    @Test("--at and --now are instants parsed once: Z, an offset, a date; anything else names the option")
    func instants() throws {
        let refund = try AdminCommand.Refund.parse(["ada", "1", "--at", "2026-11-17T12:00:00+01:00", "--state", "s"])
        #expect(refund.at?.date == Timestamp(timeIntervalSince1970: 1_794_913_200))
        #expect(AdminCommand.instant(refund.at) == Timestamp(timeIntervalSince1970: 1_794_913_200))
        let repair = try AdminCommand.Repair.parse(["--at", "2026-11-17", "--state", "s"])
        #expect(repair.at?.date == Timestamp(timeIntervalSince1970: 1_794_873_600))
        #expect(
            Self.refusal(AdminCommand.Repair.self, ["--at", "yesterday", "--state", "s"])
                == "The value 'yesterday' is invalid for '--at <yyyy-mm-ddThh:mm:ssZ>'")
        let zoneless = ["ada", "--window", "day", "--at", "2026-11-17T12:00:00", "--state", "s"]
        #expect(
            Self.refusal(AdminCommand.Reset.self, zoneless)
                == "The value '2026-11-17T12:00:00' is invalid for '--at <yyyy-mm-ddThh:mm:ssZ>'")

        let usage = try UsageCommand.parse(["--sub", "ada", "--now", "2026-11-17T12:00:00.250Z"])
        #expect(usage.common.now?.date == Timestamp(timeIntervalSince1970: 1_794_916_800.25))
        #expect(
            Self.refusal(UsageCommand.self, ["--sub", "ada", "--now", "soon"])
                == "The value 'soon' is invalid for '--now <yyyy-mm-ddThh:mm:ssZ>'")
        #expect(
            Self.refusal(TokenCommand.self, ["--sub", "ada", "--now", "17/11/2026"])
                == "The value '17/11/2026' is invalid for '--now <yyyy-mm-ddThh:mm:ssZ>'")
    }

    @Test("Dates are YYYY-MM-DD with a real month and day")
    func dates() throws {
        #expect(try AdminCommand.Refused.parse(["2026-11-17", "--state", "s"]).date.text == "2026-11-17")
        #expect(try UsageCommand.parse(["--refused-on", "2026-02-01"]).refusedOn?.text == "2026-02-01")
        for bad in ["2026-13-01", "2026-11-7", "26-11-17", "2026-11-1x", "2026-00-10", "2026-02-30"] {
            #expect(
                Self.refusal(AdminCommand.Refused.self, [bad, "--state", "s"])
                    == "The value '\(bad)' is invalid for '<yyyy-mm-dd>'")
            #expect(
                Self.refusal(UsageCommand.self, ["--refused-on", bad])
                    == "The value '\(bad)' is invalid for '--refused-on <yyyy-mm-dd>'")
        }
    }

    @Test("serve: --payload, --runtime-function and --pool-issuer are parsed values with their lists")
    func serve() throws {
        let defaults = try ServeCommand.parse([]).options
        #expect(defaults.payload.version == .v1)
        #expect(defaults.runtimeFunction.value == .generateQuestions)
        #expect(defaults.poolIssuer.value == .local)
        #expect(defaults.poolIssuer.value.form == nil)

        let chosen = try ServeCommand.parse([
            "--payload", "HTTP", "--runtime-function", "checkusage", "--pool-issuer", "updated",
        ]).options
        #expect(chosen.payload.version == .v2)
        #expect(chosen.runtimeFunction.value == .checkUsage)
        #expect(chosen.poolIssuer.value.form == .updated)
        #expect(try ServeCommand.parse(["--pool-issuer", "ORIGINAL"]).options.poolIssuer.value.form == .original)

        #expect(
            Self.refusal(ServeCommand.self, ["--payload", "v3"])
                == "The value 'v3' is invalid for '--payload <payload>'. Please provide one of 'v1' and 'v2'.")
        #expect(
            Self.refusal(ServeCommand.self, ["--pool-issuer", "modern"])
                == "The value 'modern' is invalid for '--pool-issuer <pool-issuer>'. "
                + "Please provide one of 'local', 'ORIGINAL' or 'UPDATED'.")
        #expect(
            Self.refusal(ServeCommand.self, ["--runtime-function", "everything"])
                == "The value 'everything' is invalid for '--runtime-function <runtime-function>'. "
                + "Please provide one of 'authorizer', 'checkUsage', 'generateQuestions', 'deleteAccount' or "
                + "'repairCharges'.")
        // exec takes the same options, and the command after --.
        let exec = try ExecCommand.parse(["--payload", "v2", "--port", "4000", "--", "python3", "-V"])
        #expect(exec.options.payload.version == .v2 && exec.options.port == 4000)
        #expect(exec.command == ["python3", "-V"])
        #expect(defaults.port == nil)
    }

    @Test("Shared flags: --log-level in any case, --token-use, and usage's --tier")
    func sharedFlags() throws {
        let usage = try UsageCommand.parse([
            "--sub", "ada", "--log-level", "INFO", "--token-use", "any", "--tier", "premium",
        ])
        #expect(usage.common.logLevel.value == .info)
        #expect(usage.common.tokenUse.value == .any)
        #expect(usage.tier.value == .premium)
        #expect(try UsageCommand.parse(["--sub", "ada"]).common.logLevel.value == .warning)

        #expect(
            Self.refusal(UsageCommand.self, ["--sub", "ada", "--log-level", "loud"])
                == """
                The value 'loud' is invalid for '--log-level <log-level>'. Please provide one of the following:
                  - trace
                  - debug
                  - info
                  - notice
                  - warning
                  - error
                  - critical
                """)
        #expect(
            Self.refusal(UsageCommand.self, ["--sub", "ada", "--token-use", "refresh"])
                == "The value 'refresh' is invalid for '--token-use <token-use>'. "
                + "Please provide one of 'access', 'id' or 'any'.")
        #expect(
            Self.refusal(UsageCommand.self, ["--sub", "ada", "--tier", "gold"])
                == "The value 'gold' is invalid for '--tier <tier>'. Please provide one of 'free' and 'premium'.")
    }

    @Test("invoke and run-runtime take a function's name in any case; generate-event a kind of the list")
    func namesAndKinds() throws {
        #expect(try InvokeCommand.parse(["GenerateQuestions"]).function.value == .generateQuestions)
        #expect(
            Self.refusal(InvokeCommand.self, ["deleteEverything"])
                == "The value 'deleteEverything' is invalid for '<function>'. Please provide one of 'authorizer', "
                + "'checkUsage', 'generateQuestions', 'deleteAccount' or 'repairCharges'.")
        #expect(
            Self.refusal(RunRuntimeCommand.self, ["/bin/true", "--function", "nothing"])
                == "The value 'nothing' is invalid for '--function <function>'. Please provide one of 'authorizer', "
                + "'checkUsage', 'generateQuestions', 'deleteAccount' or 'repairCharges'.")

        #expect(try GenerateEventCommand.parse(["http-usage", "--sub", "ada"]).kind.value == .httpUsage)
        let kinds = SampleEvents.Kind.allCases.map { "  - \($0.rawValue)" }.joined(separator: "\n")
        #expect(
            Self.refusal(GenerateEventCommand.self, ["rest-delete", "--sub", "ada"])
                == "The value 'rest-delete' is invalid for '<kind>'. Please provide one of the following:\n\(kinds)")
    }
}
