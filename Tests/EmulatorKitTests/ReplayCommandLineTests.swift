import Foundation
import InkraTestSupport
import Testing

/// `replay`'s command line (issue #49): a subcommand per job, each with its own options; the 0.1
/// spellings still read, with a notice; options of another job refused by name.
@Suite("replay's subcommands (spawned)")
struct ReplayCommandLineTests {
    /// A job, the options its `--help` lists, and options of the other jobs it must not list.
    struct Job: CustomTestStringConvertible, Sendable {
        let arguments: [String]
        let has: Set<String>
        let hasNot: Set<String>

        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let jobs = [
        Job(
            arguments: ["replay", "check"],
            has: ["--update", "--json", "--jobs", "--state-from-scan", "--recorded-trust", "--limits", "--state"],
            hasNot: ["--algorithm", "--recorded-limits", "--prices", "--users", "--token", "--storm-limit"]),
        Job(
            arguments: ["replay", "report"],
            has: ["--json", "--algorithm", "--recorded-limits", "--jobs", "--recorded-trust", "--limits"],
            hasNot: ["--update", "--prices", "--lambda-ms", "--users", "--token", "--storm-limit"]),
        Job(
            arguments: ["replay", "bill"],
            has: ["--json", "--prices", "--lambda-ms", "--model-price", "--users", "--waf", "--algorithm", "--limits"],
            hasNot: ["--update", "--jobs", "--token", "--storm-limit"]),
        Job(
            arguments: ["replay", "endpoint"],
            has: ["--json", "--token", "--token-file", "--user", "--storm-limit", "--user-pool-id", "--client-id"],
            hasNot: [
                "--update", "--jobs", "--state", "--limits", "--seed", "--algorithm", "--prices", "--recorded-trust",
            ]),
    ]

    /// The options a `--help` lists: the first word of each line under OPTIONS that starts with `--`,
    /// an inversion's `--x/--no-x` read as `--x`.
    static func options(in help: String) -> Set<String> {
        let lines = help.split(separator: "\n").drop { !$0.hasPrefix("OPTIONS:") }
        return Set(
            lines.compactMap { line -> String? in
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix("--"), let word = trimmed.split(separator: " ").first else { return nil }
                return String(word.split(separator: "/").first ?? word)
            })
    }

    @Test("Each job's --help lists its own options and none of the other jobs'", arguments: jobs)
    func help(job: Job) async throws {
        let result = try await runEmulator(job.arguments + ["--help"])
        #expect(result.status == 0, "\(result.standardError)")
        let options = Self.options(in: result.standardOutput)
        #expect(job.has.isSubset(of: options), "missing \(job.has.subtracting(options)) in \(result.standardOutput)")
        #expect(options.isDisjoint(with: job.hasNot), "\(options.intersection(job.hasNot)) in \(result.standardOutput)")
    }

    @Test("replay --help names the jobs; replay PATH is replay check PATH")
    func group() async throws {
        let help = try await runEmulator(["replay", "--help"])
        #expect(help.status == 0, "\(help.standardError)")
        for job in ["check", "report", "bill", "endpoint"] {
            #expect(help.standardOutput.contains("  \(job)"), "\(job) in \(help.standardOutput)")
        }
        let plain = try await runEmulator(["replay", "events/free-user-limits", "--jobs", "1"])
        #expect(plain.status == 0, "\(plain.standardError)")
        #expect(plain.standardOutput.contains("10 events: 10 passed, 0 failed"), "\(plain.standardOutput)")
        #expect(!plain.standardError.contains("notice:"))
    }

    @Test(
        "An old spelling still runs, as its subcommand, with a notice naming the new one",
        arguments: [
            (["--report"], "`replay --report` is now `inkra-emulator replay report`", "What if: 10 events replayed"),
            (
                ["--report", "--cost", "--lambda-ms", "10"],
                "`replay --report --cost` is now `inkra-emulator replay bill`",
                "Cost: 10 events replayed"
            ),
        ])
    func oldSpelling(flags: [String], notice: String, output: String) async throws {
        let result = try await runEmulator(["replay", "events/free-user-limits"] + flags)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.standardError.contains("notice: \(notice); the old spelling goes in 0.3.0"),
            "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix(output), "\(result.standardOutput)")
    }

    @Test("replay --endpoint URL reads as replay endpoint URL: its own checks run, after the notice")
    func oldEndpointSpelling() async throws {
        for endpoint in [["--endpoint", "http://127.0.0.1:1"], ["--endpoint=http://127.0.0.1:1"]] {
            let result = try await runEmulator(["replay", "events"] + endpoint + ["--token", "t", "--user", "u"])
            #expect(result.status == 2)
            #expect(
                result.standardError.contains(
                    "notice: `replay --endpoint URL` is now `inkra-emulator replay endpoint URL`"),
                "\(result.standardError)")
            #expect(result.standardError.contains("give one of --token, --token-file and --user"))
        }
    }

    @Test(
        "An option of another job, or a bad combination within one, is refused with exit 2, naming it",
        arguments: [
            (["replay", "report", "events", "--update"], "Unknown option '--update'"),
            (["replay", "check", "events", "--prices", "p.json"], "Unknown option '--prices'"),
            (["replay", "endpoint", "http://127.0.0.1:1", "events", "--state", "s.json"], "Unknown option '--state'"),
            (["replay", "events", "--report", "--update"], "Unknown option '--update'"),
            (["replay", "bill", "events", "--template", "template.yaml"], "--template goes with --users"),
            (["replay", "endpoint", "ftp://example.com", "events"], "URL must be an http or https URL"),
        ])
    func refused(arguments: [String], message: String) async throws {
        let result = try await runEmulator(arguments)
        #expect(result.status == 2)
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(result.standardOutput.isEmpty)
    }
}
