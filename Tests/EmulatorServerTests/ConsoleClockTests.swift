import EmulatorKit
import Foundation
import InkraJSON
import InkraTestSupport
import InkraTime
import NIOHTTP1
import Testing

// The rebuild lines are made in the module (by `WatchLoop`), with its own initializer.
@testable import EmulatorServer

/// The console's clock button (`POST /api/clock`, as `/_inkra/clock`) and the rebuild lines of
/// `serve --watch` in its feed.
@Suite("serve's console: the clock button and the rebuild lines")
struct ConsoleClockTests {
    static func settings(virtual clock: VirtualClock? = nil) -> ServeConfiguration {
        var configuration = ServeFixture.settings()
        configuration.ports[.console] = 0
        configuration.virtualClock = clock
        return configuration
    }

    /// A virtual clock at the fixture's instant whose real time stands still.
    static func stoppedClock() -> VirtualClock { VirtualClock(start: ServeFixture.when, real: { ServeFixture.when }) }

    static let json = [("Content-Type", "application/json")]

    @Test("Under --clock virtual: GET /api/clock shows the time; POST advance PT1H moves the stack's clock one hour")
    func advances() async throws {
        let clock = Self.stoppedClock()
        try await ServeFixture.run(Self.settings(virtual: clock)) { served in
            let console = try #require(served.endpoints.console)
            let before = try await served.send(.GET, console, path: "api/clock")
            #expect(before.status == 200)
            #expect(try JSONParser.parse(before.body) == ["now": "2027-01-15T08:10:00Z", "virtual": true])
            let moved = try await served.send(
                .POST, console, path: "api/clock", headers: Self.json, body: Array(#"{"advance":"PT1H"}"#.utf8))
            #expect(moved.status == 200)
            #expect(try JSONParser.parse(moved.body)["now"] == "2027-01-15T09:10:00Z")
            #expect(clock.now() == ServeFixture.when.addingTimeInterval(3600))
        }
    }

    @Test("A POST without a JSON body is refused 415 and moves nothing; on the real clock, 409 naming --clock virtual")
    func refusals() async throws {
        let clock = Self.stoppedClock()
        try await ServeFixture.run(Self.settings(virtual: clock)) { served in
            let console = try #require(served.endpoints.console)
            let form = try await served.send(
                .POST, console, path: "api/clock", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Array("advance=PT1H".utf8))
            #expect(form.status == 415)
            #expect(clock.now() == ServeFixture.when)
            let other = try await served.send(.POST, console, path: "api/users", headers: Self.json, body: [])
            #expect(other.status == 405)
        }
        try await ServeFixture.run(Self.settings()) { served in
            let console = try #require(served.endpoints.console)
            let state = try JSONParser.parse(try await served.send(.GET, console, path: "api/clock").body)
            #expect(state["virtual"] == false)
            let refused = try await served.send(
                .POST, console, path: "api/clock", headers: Self.json, body: Array(#"{"advance":"PT1H"}"#.utf8))
            #expect(refused.status == 409)
            #expect(try JSONParser.parse(refused.body)["error"]?.string?.contains("--clock virtual") == true)
        }
    }

    @Test("Rebuild lines reach the live list as they come and /api/rebuilds keeps them, a failure with its lines")
    func rebuildLines() async throws {
        try await ServeFixture.run(Self.settings()) { served in
            let console = try #require(served.endpoints.console)
            let feed = try #require(served.server.console?.feed)
            let stream = try await ConsoleStream.open(console)
            feed.note(.init(stage: .started, message: "Handler.swift changed; building"))
            feed.note(
                .init(
                    stage: .failed, message: "the build failed (exit 1, 2.0 sec); still serving the last good build",
                    lines: ["Handler.swift:3:1: error: cannot find 'oops' in scope"]))
            let events = try await stream.next(2, within: Patience.hang)
            #expect(events.map(\.name) == ["rebuild", "rebuild"])
            #expect(try JSONParser.parse(events[0].data)["stage"] == "started")
            let failed = try JSONParser.parse(events[1].data)
            #expect(failed["stage"] == "failed")
            #expect(failed["lines"] == ["Handler.swift:3:1: error: cannot find 'oops' in scope"])
            let kept = try JSONParser.parse(try await served.send(.GET, console, path: "api/rebuilds").body)
            #expect(kept["rebuilds"]?.array?.map { $0["stage"] } == ["started", "failed"])
        }
    }
}
