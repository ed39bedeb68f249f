import ArgumentParser
import EmulatorKit
import Foundation
import HTTPText
import InkraJSON

/// `inkra-emulator clock`: a running `serve --clock virtual`'s clock, read or moved.
struct ClockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clock",
        abstract: "Show or move the clock of a running serve --clock virtual.",
        discussion: """
            show prints the stack's time, an ISO-8601 instant alone on its line, as --now takes it (standard \
            error says so when serve runs on the real time); advance DURATION moves it forward (1h, 15m, 90s, \
            2d, or ISO 8601: PT1H, P1D) and set INSTANT to an ISO-8601 instant, each printing the new time. Everything the stack reads time from \
            moves together: the usage windows and retryAfter, token expiry, the authorizer cache, idempotency \
            records, time to live, the local pool's tokens and codes, the repair of unanswered charges, and a \
            runtime started by --bootstrap (it runs each event at API Gateway's request time). The clock only \
            moves forward: a negative duration, or an instant before the stack's time, is refused (exit 2).

            Examples, with serve --clock virtual running on port 3000:
              swift run inkra-emulator clock advance 1h
              swift run inkra-emulator clock set 2026-12-01T00:00:00Z --serve http://127.0.0.1:4000
              TOKEN=$(swift run inkra-emulator token --sub alice --now "$(swift run inkra-emulator clock show)")
            """,
        // Only --help: `-1h` is a negative duration to refuse, not -1 and -h (the help).
        helpNames: [.long]
    )

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case show, advance, set
    }

    @Argument(help: "show, advance or set.")
    var action: Action

    @Argument(parsing: .allUnrecognized, help: "The duration (advance) or the instant (set).")
    var values: [String] = []

    /// The duration or the instant.
    var value: String? { values.first }

    @Option(help: "serve's API Gateway address.")
    var serve = "http://127.0.0.1:3000"

    func validate() throws {
        if values.count > 1 { throw ValidationError("\(action.rawValue) takes one value, not \(values.count)") }
        switch action {
        case .show:
            if value != nil { throw ValidationError("show takes no value") }
        case .advance:
            if let value, value.hasPrefix("-") {
                throw ValidationError(
                    "the clock only moves forward: advance takes a positive duration (1h, PT1H), not \(value); to go "
                        + "back, start serve again with --now")
            }
            guard let value, VirtualClock.seconds(of: value) != nil else {
                throw ValidationError("advance takes a duration: 1h, 15m, 90s, 2d, PT1H or P1D")
            }
        case .set:
            guard let value, Instant(argument: value) != nil else {
                throw ValidationError("set takes an ISO-8601 instant such as 2026-12-01T00:00:00Z")
            }
        }
        guard HTTPURL(string: serve)?.host != nil else { throw ValidationError("--serve must be a URL, not \(serve)") }
    }

    func run() async throws {
        let body: JSONValue? =
            switch action {
            case .show: nil
            case .advance: ["advance": .string(value ?? "")]
            case .set: ["set": .string(value ?? "")]
            }
        let state = try await ClockClient.send(body, to: HTTPURL(string: serve)!)
        // The instant alone, so `token --now "$(inkra-emulator clock show)"` mints at the stack's time.
        Output.out(state["now"]?.string ?? "?")
        if state["virtual"]?.bool != true {
            Output.err("inkra-emulator: serve runs on the real time; start it with --clock virtual to move it")
        }
    }
}
