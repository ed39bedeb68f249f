import EmulatorKit
import Foundation
import InkraJSON
import InkraTestSupport
import Testing

/// What the commands say about input that is not what they take (docs/bad-input.md): a missing
/// path exits 2 naming it; `import` refuses what is not a log capture, naming what it is and what
/// to do, before it writes anything.
@Suite("Missing paths and what import does not take (spawned)")
struct NotWhatItTakesTests {
    @Test("replay /nope exits 2 naming the path, with no summary; so does a missing path beside a good one")
    func missingPath() async throws {
        let result = try await runEmulator(["replay", "/nope"])
        #expect(result.status == 2)
        #expect(
            result.standardError.contains("inkra-emulator: no such file or folder: /nope"), "\(result.standardError)")
        #expect(!result.standardOutput.contains("events"), "\(result.standardOutput)")
        let mixed = try await runEmulator(["replay", "events/checkUsage", "/nope"])
        #expect(mixed.status == 2)
    }

    @Test("import refuses a serve --record folder, its files, a folder, an empty file; exit 2, nothing written")
    func importRefuses() async throws {
        let folder = Repository.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A folder as serve --record writes it: its manifest, an event and its expectation.
        let recorded = folder.appendingPathComponent("rec")
        let events = recorded.appendingPathComponent("checkUsage")
        try FileManager.default.createDirectory(at: events, withIntermediateDirectories: true)
        try Data(#"{"version": 1, "issuers": []}"#.utf8).write(
            to: recorded.appendingPathComponent(".inkra-recording.json"))
        for suffix in ["json", "expected.json"] {
            try FileManager.default.copyItem(
                at: Repository.events.appendingPathComponent("checkUsage/01-rest-new-user.\(suffix)"),
                to: events.appendingPathComponent("01-rest-new-user.\(suffix)"))
        }
        let plain = folder.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        let empty = folder.appendingPathComponent("empty.json")
        try Data().write(to: empty)
        let out = folder.appendingPathComponent("out")
        let cases: [(String, String)] = [
            (
                recorded.path,
                "is a folder serve --record wrote: it is an events folder already and needs no import; "
                    + "replay it with inkra-emulator replay \(recorded.path)"
            ),
            (
                events.appendingPathComponent("01-rest-new-user.json").path,
                "is an API Gateway event, not a log capture: a folder of events (serve --record writes one) needs no "
                    + "import; replay it with inkra-emulator replay"
            ),
            (
                events.appendingPathComponent("01-rest-new-user.expected.json").path,
                "is an event's expectation, not a log capture"
            ),
            (
                recorded.appendingPathComponent(".inkra-recording.json").path,
                "is the manifest of a folder serve --record wrote, not a log capture"
            ),
            (plain.path, "is a folder, not a log capture: name the files of captured logs in it"),
            (
                empty.path,
                "is empty: capture the functions' logs (aws logs filter-log-events --output json) with "
                    + "INKRA_RECORD_EVENTS=1 set on them"
            ),
            (folder.appendingPathComponent("nope.json").path, "no such file: "),
        ]
        for (source, message) in cases {
            let result = try await runEmulator(["import", source, "--out", out.path])
            #expect(result.status == 2, "\(source): \(result.standardOutput)\(result.standardError)")
            #expect(result.standardError.contains(message), "\(source): \(result.standardError)")
            #expect(!result.standardError.contains("NSCocoaErrorDomain"))
            #expect(!result.standardOutput.contains("written"), "\(source): \(result.standardOutput)")
            #expect(!FileManager.default.fileExists(atPath: out.path), "\(source) wrote \(out.path)")
        }
    }
}
