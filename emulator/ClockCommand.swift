import ArgumentParser
import EmulatorKit
import Foundation
import InkraJSON

/// `inkra-emulator clock`: a running `serve --clock virtual`'s clock, read or moved.
struct ClockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clock",
        abstract: "Show or move the clock of a running serve --clock virtual.",
        discussion: """
            show prints the stack's time; advance DURATION moves it forward (1h, 15m, 90s, 2d, or ISO 8601: \
            PT1H, P1D); set INSTANT moves it to an ISO-8601 instant. Everything the stack reads time from \
            moves together: the usage windows and retryAfter, token expiry, the authorizer cache, idempotency \
            records, time to live, the local pool's tokens and codes, the repair of unanswered charges, and a \
            runtime started by --bootstrap (it runs each event at API Gateway's request time). The clock only \
            moves forward.

            Examples, with serve --clock virtual running on port 3000:
              swift run inkra-emulator clock advance 1h
              swift run inkra-emulator clock set 2026-12-01T00:00:00Z --serve http://127.0.0.1:4000
            """
    )

    enum Action: String, ExpressibleByArgument, CaseIterable {
        case show, advance, set
    }

    @Argument(help: "show, advance or set.")
    var action: Action

    @Argument(help: "The duration (advance) or the instant (set).")
    var value: String?

    @Option(help: "serve's API Gateway address.")
    var serve = "http://127.0.0.1:3000"

    func validate() throws {
        switch action {
        case .show:
            if value != nil { throw ValidationError("show takes no value") }
        case .advance:
            guard let value, VirtualClock.seconds(of: value) != nil else {
                throw ValidationError("advance takes a duration: 1h, 15m, 90s, 2d, PT1H or P1D")
            }
        case .set:
            guard let value, Instant(argument: value) != nil else {
                throw ValidationError("set takes an ISO-8601 instant such as 2026-12-01T00:00:00Z")
            }
        }
        guard URL(string: serve)?.host != nil else { throw ValidationError("--serve must be a URL, not \(serve)") }
    }

    func run() async throws {
        let body: JSONValue? =
            switch action {
            case .show: nil
            case .advance: ["advance": .string(value ?? "")]
            case .set: ["set": .string(value ?? "")]
            }
        let state = try await ClockClient.send(body, to: URL(string: serve)!)
        let now = state["now"]?.string ?? "?"
        Output.out(state["virtual"]?.bool == true ? "\(now) (virtual)" : "\(now) (the real time)")
    }
}
