import Foundation
import InkraHandlers
import InkraJSON

/// One event read from its file or its line, parsed, and ready to run — or the problem that keeps
/// it from running.
package struct LoadedEvent: Sendable {
    /// Where an event's expected result is.
    enum ExpectationPlace: Sendable {
        /// `<name>.expected.json` beside the event file (it may not exist).
        case beside(URL)
        /// Inline, under the line's `x-inkra-expected` (`nil` when the line has none).
        case inline(JSONValue?)
    }

    /// The event as named in output: its file, or `<file>:<line>`.
    var display: String
    /// The event as read.
    package var event: JSONValue = .null
    /// The function it is for.
    package var function: FunctionName?
    /// Why it cannot run.
    var problem: String?
    /// Where its expectation is.
    var expectation: ExpectationPlace = .inline(nil)
    /// What it shares state through (its user, its idempotency key): events that share one run in
    /// input order, on one worker. Read only when events run side by side (``ReplayLanes``).
    var keys: [String] = []

    /// The field of a JSON-lines event that holds its expectation.
    static let expectedField = "x-inkra-expected"

    /// An event that cannot run.
    init(display: String, problem: String) {
        self.display = display
        self.problem = problem
    }

    /// Reads an event from its bytes.
    /// - Parameters:
    ///   - bytes: the file's or line's bytes.
    ///   - display: how the event is named in output.
    ///   - folderFunction: the function the event's folder names, if any.
    ///   - expectation: where its expectation is (a line's is read from the event itself).
    init(bytes: [UInt8], display: String, folderFunction: FunctionName?, expectation: ExpectationPlace?) {
        self.display = display
        guard bytes.count <= Replayer.maximumEventSize else {
            problem = "event is \(bytes.count) bytes; Lambda accepts at most \(Replayer.maximumEventSize)"
            return
        }
        let event: JSONValue
        do {
            event = try JSONParser.parse(bytes)
        } catch {
            problem = "not valid JSON: \(error)"
            return
        }
        guard event.object != nil else {
            problem = "an event must be a JSON object, not \(event.typeName)"
            return
        }
        let named = event["x-inkra-function"]?.string
        if let named, FunctionName(caseInsensitive: named) == nil {
            problem =
                "x-inkra-function \"\(named)\" is not one of \(FunctionName.allCases.map(\.rawValue).joined(separator: ", "))"
            return
        }
        guard let function = named.flatMap(FunctionName.init(caseInsensitive:)) ?? folderFunction else {
            problem =
                "cannot tell which function this event is for: put it under a folder named after the function "
                + "(events/generateQuestions/…) or add \"x-inkra-function\""
            return
        }
        if let expected = event[Self.expectedField], expected.object == nil {
            problem = "\(Self.expectedField) must be a JSON object, not \(expected.typeName)"
            return
        }
        self.event = event
        self.function = function
        self.expectation = expectation ?? .inline(event[Self.expectedField])
    }

    /// The event's expected result: inline, or `<name>.expected.json` beside it; `nil` when it has none.
    /// - Throws: ``EmulatorError`` naming the file that cannot be read or is not JSON.
    func expected() throws(EmulatorError) -> JSONValue? {
        switch expectation {
        case .inline(let expected): expected
        case .beside(let url): try Replayer.readJSON(url, named: url.lastPathComponent)
        }
    }
}
