import EmulatorKit
import Foundation
import InkraTestSupport
import InkraTime
import Testing

/// `serve --clock virtual`: a clock a developer moves, which everything in the stack reads.
@Suite("serve --clock virtual and inkra-emulator clock")
struct VirtualClockTests {
    @Test("Durations: 1h, 15m, 90s, 2d, PT1H, P1D, P1DT2H30M; anything else is refused")
    func durations() {
        #expect(VirtualClock.seconds(of: "1h") == 3600)
        #expect(VirtualClock.seconds(of: "15m") == 900)
        #expect(VirtualClock.seconds(of: "90s") == 90)
        #expect(VirtualClock.seconds(of: "2d") == 172_800)
        #expect(VirtualClock.seconds(of: "PT1H") == 3600)
        #expect(VirtualClock.seconds(of: "P1D") == 86400)
        #expect(VirtualClock.seconds(of: "P1DT2H30M") == 95400)
        #expect(VirtualClock.seconds(of: "PT1.5S") == 1.5)
        for bad in ["", "P", "1x", "PT", "P1H", "T1H", "-1h", "PTH", "soon"] {
            #expect(VirtualClock.seconds(of: bad) == nil, "\(bad)")
        }
    }

    @Test("The clock starts where it is told, moves forward only, and flows with the real time")
    func moves() throws {
        let real = Timestamp(timeIntervalSince1970: 1_800_000_000)
        let start = Timestamp(timeIntervalSince1970: 1_700_000_000)
        let clock = VirtualClock(start: start, real: { real })
        #expect(clock.now() == start)
        #expect(try clock.advance(by: 3600) == start.addingTimeInterval(3600))
        #expect(throws: EmulatorError.self) { try clock.advance(by: -1) }
        #expect(throws: EmulatorError.self) { try clock.set(to: start) }
        #expect(try clock.set(to: start.addingTimeInterval(86400)) == start.addingTimeInterval(86400))
    }

    /// A free user at the hourly limit, the clock moved an hour, a token that expired under the move.
    static let session = #"""
        set -e
        call() { curl -s -o /dev/null -w '%{http_code}\n' "$@"; }
        for i in 1 2 3; do
            call -X POST "$INKRA_API_URL/questions" -H "Authorization: Bearer $LONG" -H "Idempotency-Key: k$i" \
                -d '{"topic":"a clock you can move"}'
        done
        "$EMULATOR" clock advance 1h --serve "$INKRA_API_URL"
        call -X POST "$INKRA_API_URL/questions" -H "Authorization: Bearer $LONG" -H "Idempotency-Key: k4" \
            -d '{"topic":"an hour later"}'
        call "$INKRA_API_URL/usage" -H "Authorization: Bearer $SHORT"
        NOW=$("$EMULATOR" clock show --serve "$INKRA_API_URL")
        echo "$NOW"
        FRESH=$("$EMULATOR" token --sub ada --now "$NOW" --expires-in 600)
        call "$INKRA_API_URL/usage" -H "Authorization: Bearer $FRESH"
        """#

    @Test(
        "At 429, an advance of 1h admits the next call; a 10-minute token is refused; one minted at clock show's passes"
    )
    func hourLater() async throws {
        let start = "2026-06-01T10:00:00Z"
        func token(_ seconds: Int) async throws -> String {
            try await runEmulator(["token", "--sub", "ada", "--now", start, "--expires-in", String(seconds)])
                .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let long = try await token(7200)
        let short = try await token(600)
        let result = try await runEmulator([
            "exec", "--clock", "virtual", "--now", start, "--no-cognito", "--no-console", "--", "/usr/bin/env",
            "LONG=\(long)", "SHORT=\(short)", "EMULATOR=\(Repository.emulatorBinary.path)", "sh", "-c", Self.session,
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(3)) == ["200", "200", "429"], "\(result.standardOutput)")
        // `clock advance` and `clock show` print the instant alone, as `token --now` takes it.
        #expect(lines.dropFirst(3).first?.hasPrefix("2026-06-01T11:00:0") == true)
        #expect(
            lines.dropFirst(3).first.flatMap { CivilTime.instant(iso8601: $0, allowingDate: true) } != nil, "\(lines)")
        #expect(lines.dropFirst(4).first == "200")
        #expect(lines.dropFirst(5).first == "401")
        #expect(lines.dropFirst(6).first?.hasPrefix("2026-06-01T11:00:") == true, "\(lines)")
        #expect(lines.dropFirst(7).first == "200", "\(result.standardOutput)\n\(result.standardError)")
        #expect(result.standardError.contains("refused=expired"), "\(result.standardError)")
    }

    @Test("On the real clock, /_inkra/clock reads the time and refuses to move it, naming --clock virtual")
    func realClock() async throws {
        let result = try await runEmulator([
            "exec", "--no-cognito", "--no-console", "--", "sh", "-c",
            #""$0" clock show --serve "$INKRA_API_URL"; "$0" clock advance 1h --serve "$INKRA_API_URL""#,
            Repository.emulatorBinary.path,
        ])
        #expect(result.status == 2, "\(result.standardOutput)\n\(result.standardError)")
        let shown = result.standardOutput.trimmingCharacters(in: .newlines)
        #expect(CivilTime.instant(iso8601: shown, allowingDate: true) != nil, "\(result.standardOutput)")
        #expect(result.standardError.contains("serve runs on the real time; start it with --clock virtual"))
        #expect(
            result.standardError.contains("answered 409: serve runs on the real time; start it with --clock virtual"))
        let refused = try await runEmulator(["clock", "advance", "soon"])
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("advance takes a duration"))
    }

    @Test("clock advance -1h is refused (exit 2): the clock only moves forward, and no help is printed")
    func negativeAdvance() async throws {
        for value in ["-1h", "-PT1H", "-90s"] {
            let result = try await runEmulator(["clock", "advance", value])
            #expect(result.status == 2, "\(value): \(result.standardOutput)\(result.standardError)")
            #expect(result.standardOutput.isEmpty, "\(value)")
            #expect(
                result.standardError.contains(
                    "the clock only moves forward: advance takes a positive duration (1h, PT1H), not \(value)"),
                "\(result.standardError)")
        }
    }
}
