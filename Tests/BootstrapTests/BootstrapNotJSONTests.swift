import EmulatorKit
import Foundation
import InkraJSON
import InkraTestSupport
import Testing

/// An event that is not JSON, handed to the built `bootstrap`: the runtime parses each event once
/// and both of its paths (plain, and recording under `INKRA_RECORD_EVENTS=1`) fail the invocation
/// with the parser's account, as Lambda reports a function error, and the runtime goes on.
@Suite("bootstrap: an event that is not JSON")
struct BootstrapNotJSONTests {
    @Test(
        "fails as InvalidEvent naming the parse error, recorded or not, and the next event is answered",
        arguments: [false, true])
    func notJSON(recording: Bool) async throws {
        var outcomes: [RuntimeOutcome] = []
        let settings = recording ? ["INKRA_RECORD_EVENTS": "1"] : [:]
        let printed = try await BuiltBootstrap.byteSession("checkUsage", settings) { invoke in
            outcomes.append(await invoke(Array("{\"version\": \"2.0\", ".utf8)))
            outcomes.append(await invoke(Array("[1, 2]".utf8)))
        }
        #expect(outcomes.count == 2)
        guard case .error(let type, let body) = outcomes.first else {
            Issue.record("expected a function error, got \(String(describing: outcomes.first))")
            return
        }
        #expect(type == "InvalidEvent")
        let error = try JSONParser.parse(body)
        #expect(error["errorType"]?.string == "InvalidEvent")
        #expect(error["errorMessage"]?.string?.hasPrefix("event is not valid JSON: ") == true)
        // JSON that is not an event: the function's own check, after the runtime parsed it once.
        guard case .error(let secondType, let secondBody) = outcomes.last else {
            Issue.record("expected a function error, got \(String(describing: outcomes.last))")
            return
        }
        #expect(secondType == "InvalidEvent")
        #expect(String(decoding: secondBody, as: UTF8.self).contains("must be a JSON object, not array"))
        let recordings = printed.standardOutput.split(separator: "\n").filter { $0.contains("INKRA_RECORDING") }
        if recording {
            #expect(recordings.count == 2, "\(printed.standardOutput)")
            #expect(recordings.allSatisfy { $0.contains("InvalidEvent") }, "\(recordings)")
        } else {
            #expect(recordings.isEmpty)
        }
    }
}
