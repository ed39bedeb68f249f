import Foundation
import InkraHandlers
import InkraJSON
import InkraTime
import InkraUsage

/// Writes recordings as an events folder that `replay` reads as it reads `events/`:
/// `DIR/<function>/<recorded time>-<request id>.json` and its `.expected.json`, and the
/// authorizer's decisions, which cannot be replayed without their tokens, one JSON object a line
/// in `DIR/authorizer-decisions.jsonl`.
///
/// The event gets the recorded instant as its time (`requestTimeEpoch` or `timeEpoch`, and
/// `x-inkra-recorded-at`), so every reader of it runs it at the instant the function read.
package struct ImportWriter: Sendable {
    /// The folder written.
    package var directory: URL
    /// Replaces user ids, when `--pseudonymize` is given.
    package var pseudonymizer: Pseudonymizer?

    /// A writer into a folder.
    package init(directory: URL, pseudonymizer: Pseudonymizer? = nil) {
        self.directory = directory
        self.pseudonymizer = pseudonymizer
    }

    /// The event file a recording is written to, relative to the folder.
    package static func relativePath(of recording: Recording) -> String {
        relativePath(
            function: recording.function, epochMilliseconds: Int(recording.epochMilliseconds),
            requestID: recording.requestID)
    }

    /// The event file of a function's event at an instant, relative to the folder.
    static func relativePath(function: String, epochMilliseconds: Int, requestID: String) -> String {
        let time = CivilTime.iso8601(milliseconds: Int64(epochMilliseconds)).replacingOccurrences(of: ":", with: "-")
        let id = String(
            requestID.unicodeScalars.map { scalar in
                CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar)
                    ? Character(scalar) : "_"
            })
        return "\(function)/\(time)-\(id).json"
    }

    /// Writes one function recording (event and expectation).
    /// - Throws: ``EmulatorError`` naming the file that cannot be written.
    package func write(_ recording: Recording) throws(EmulatorError) {
        guard let event = recording.event, event.object != nil else {
            throw EmulatorError("recording \(recording.requestID) has no event to write")
        }
        try write(
            event: event, function: recording.function, requestID: recording.requestID,
            epochMilliseconds: Int(recording.epochMilliseconds), expectation: Self.expectation(of: recording))
    }

    /// Writes one event, at its instant, and its expectation when it has one.
    /// - Throws: ``EmulatorError`` naming the file that cannot be written.
    package func write(
        event: JSONValue, function: String, requestID: String, epochMilliseconds: Int, expectation: JSONValue?
    ) throws(EmulatorError) {
        var event = event
        if let pseudonymizer { event = pseudonymizer.event(event) }
        if event["requestContext"] != nil {
            let key = event["version"]?.string == "2.0" ? "timeEpoch" : "requestTimeEpoch"
            event.set(.number(String(epochMilliseconds)), at: ["requestContext", key])
        }
        event.set(.string(function), at: ["x-inkra-function"])
        event.set(.string(CivilTime.iso8601(milliseconds: Int64(epochMilliseconds))), at: ["x-inkra-recorded-at"])
        let url = directory.appendingPathComponent(
            Self.relativePath(function: function, epochMilliseconds: epochMilliseconds, requestID: requestID))
        try Replayer.write(event.prettyJSONString + "\n", to: url)
        if let expectation {
            try Replayer.write(
                expectation.prettyJSONString + "\n",
                to: url.deletingPathExtension().appendingPathExtension("expected.json"))
        }
    }

    /// Appends the authorizer decisions to `authorizer-decisions.jsonl` (created anew each import).
    package func writeDecisions(_ recordings: [Recording]) throws(EmulatorError) {
        guard !recordings.isEmpty else { return }
        var lines = ""
        for recording in recordings {
            var object: JSONObject = [
                "requestId": .string(recording.requestID),
                "at": .string(CivilTime.iso8601(milliseconds: recording.epochMilliseconds)),
            ]
            if var decision = recording.decision {
                if let pseudonymizer { decision = pseudonymizer.context(decision) }
                object["decision"] = decision
            }
            if let error = recording.error { object["error"] = error }
            lines += JSONValue.object(object).jsonString + "\n"
        }
        try Replayer.write(lines, to: directory.appendingPathComponent("authorizer-decisions.jsonl"))
    }

    /// The expectation of a recorded response: its status, the headers that matter, its body (a
    /// generated answer's questions only by their count, under `recorded`, which replay ignores),
    /// or the invocation's error.
    package static func expectation(of recording: Recording) -> JSONValue {
        var recorded: JSONObject = [
            "requestId": .string(recording.requestID),
            "at": .string(CivilTime.iso8601(milliseconds: recording.epochMilliseconds)),
        ]
        if let error = recording.error {
            return ["error": error, "recorded": .object(recorded)]
        }
        guard let response = recording.response, let status = response["statusCode"]?.int else {
            return ["recorded": .object(recorded)]
        }
        var expected: JSONObject = ["statusCode": .number(status)]
        var headers = JSONObject()
        for (name, value) in response["headers"]?.object?.pairs ?? []
        where ["retry-after", "idempotent-replayed", "x-amzn-errortype"].contains(name.lowercased()) {
            headers[name] = value
        }
        if !headers.isEmpty { expected["headers"] = .object(headers) }
        if let text = response["body"]?.string {
            var body = (try? JSONParser.parse(text)) ?? .string(text)
            if let count = body["questions"]?.int, var object = body.object {
                object["questions"] = nil
                body = .object(object)
                recorded["questions"] = .number(count)
            }
            expected["body"] = body
        }
        expected["recorded"] = .object(recorded)
        return .object(expected)
    }
}
