import EmulatorKit
import Foundation
import InkraJSON
import InkraTime

/// `/_inkra/clock` on `serve`'s API port: reads the stack's clock (`GET`) and, under
/// `--clock virtual`, moves it (`POST {"advance": "PT1H"}` or `{"set": "2026-12-01T00:00:00Z"}`).
/// Not a route of the deployed API: only the local stack answers it.
package struct ClockEndpoint: Sendable {
    /// The path it answers on.
    package static let path = "/_inkra/clock"

    /// The virtual clock, or `nil` when the stack runs on the real time.
    let clock: VirtualClock?
    /// The stack's time now, whichever clock it runs on.
    let now: @Sendable () -> Timestamp

    /// The answer to a request on ``path``.
    package func respond(_ request: LocalHTTPRequest) -> LocalHTTPResponse {
        switch request.method {
        case "GET": return Self.json(200, state(now()))
        case "POST":
            guard let clock else {
                return Self.error(409, "serve runs on the real time; start it with --clock virtual to move its clock")
            }
            guard let body = try? JSONParser.parse(request.body), body.object != nil else {
                return Self.error(400, #"the body must be a JSON object: {"advance": "PT1H"} or {"set": "…Z"}"#)
            }
            do {
                if let text = body["advance"]?.string, body["set"] == nil {
                    guard let seconds = VirtualClock.seconds(of: text) else {
                        return Self.error(
                            400, "advance takes a duration such as PT1H, P1D, 90s or 15m, not \(text.prefix(40))")
                    }
                    return Self.json(200, state(try clock.advance(by: seconds)))
                }
                if let text = body["set"]?.string, body["advance"] == nil {
                    guard let instant = CivilTime.instant(iso8601: text, allowingDate: true) else {
                        return Self.error(
                            400, "set takes an ISO-8601 instant such as 2026-12-01T00:00:00Z, not \(text.prefix(40))")
                    }
                    return Self.json(200, state(try clock.set(to: instant)))
                }
                return Self.error(400, #"give one of "advance" (a duration) or "set" (an instant), as a string"#)
            } catch {
                return Self.error(400, error.message)
            }
        default:
            return LocalHTTPResponse(status: 405, headers: [("Allow", "GET, POST")])
        }
    }

    private func state(_ time: Timestamp) -> JSONValue {
        ["now": .string(CivilTime.iso8601(time)), "virtual": .bool(clock != nil)]
    }

    private static func json(_ status: Int, _ body: JSONValue) -> LocalHTTPResponse {
        LocalHTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: body.jsonBytes)
    }

    private static func error(_ status: Int, _ message: String) -> LocalHTTPResponse {
        json(status, ["error": .string(message)])
    }
}
