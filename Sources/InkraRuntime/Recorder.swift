import InkraHandlers
import InkraJSON
import InkraTime
import InkraUsage
import LambdaRuntimeAPI

/// `INKRA_RECORD_EVENTS=1`: runs each invocation at one instant read once from the clock, and
/// writes a recording of it to standard output (docs/configuration.md): what replay needs of the
/// event of `checkUsage`, `generateQuestions` and `deleteAccount` and their response; the decision
/// of the authorizer, the claims it verified that decide the caller's limits and why it refused
/// (``RecordingRedaction``), user ids and idempotency keys as pseudonyms keyed by the server's
/// secret. A recording is written after the answer is computed and never changes it.
struct Recorder: Sendable {
    /// The function's name as events folders write it.
    let function: String
    /// Lambda's JSON log format rather than text.
    let json: Bool
    /// What a recording keeps, pseudonyms keyed by the server's secret.
    let redaction: RecordingRedaction
    /// The real time.
    let clock: @Sendable () -> Timestamp

    /// A recorder for the function `_HANDLER` names, written as `functions` spells it.
    init(
        handler: String?, json: Bool, secret: ServerSecret, functions: FunctionList = .standard,
        clock: @escaping @Sendable () -> Timestamp
    ) {
        let handler = handler ?? ""
        function =
            functions.name(matching: handler)
            ?? handler.split(separator: ".").last.map(String.init) ?? ""
        self.json = json
        redaction = RecordingRedaction(secret: secret)
        self.clock = clock
    }

    /// Runs one invocation at its context's time in whole milliseconds, and records it.
    /// - Parameter event: the event, or why it is not JSON.
    /// - Returns: the function's answer.
    /// - Throws: ``InvocationFailure`` when the function fails, as the runtime reports it.
    func invoke(
        _ handler: any EventHandler, _ event: Result<JSONValue, FunctionError>,
        context: InkraHandlers.InvocationContext
    ) async throws -> JSONValue {
        let milliseconds = Recording.milliseconds(of: context.time)
        var context = context
        context.time = Recording.date(milliseconds: milliseconds)
        let outcome: Result<JSONValue, FunctionError>
        var examination: Authorizer.Examination?
        // The function that runs this invocation, whatever wraps it (the limits refresh of
        // `INKRA_LIMITS_PARAMETER`): the authorizer is known by its kind, not by its wrapper's.
        let runs = await innermost(handler, for: context)
        if let authorizer = runs as? Authorizer, case .success(let parsed) = event {
            // The authorizer's answer with the claims it verified, for its recording.
            let examined = await authorizer.examined(parsed, context: context)
            examination = examined
            outcome = examined.answer
        } else {
            do throws(FunctionError) {
                outcome = .success(try await runs.handle(event.get(), context: context))
            } catch {
                outcome = .failure(error)
            }
        }
        var recording = recording(
            of: try? event.get(), outcome, requestID: context.requestID, milliseconds: milliseconds)
        if let examination {
            recording.claims = examination.claims.map(redaction.claims)
            recording.refusal = examination.refusal
        }
        write(recording)
        switch outcome {
        case .success(let answer): return answer
        case .failure(let error): throw InvocationFailure(errorType: error.errorType, errorMessage: error.errorMessage)
        }
    }

    /// The recording of one invocation.
    func recording(
        of event: JSONValue?, _ outcome: Result<JSONValue, FunctionError>, requestID: String, milliseconds: Int64
    ) -> Recording {
        var recording = Recording(function: function, requestID: requestID, epochMilliseconds: milliseconds)
        let result: JSONValue?
        switch outcome {
        case .success(let answer):
            result = answer
        case .failure(let error):
            result = nil
            recording.error = ["errorType": .string(error.errorType), "errorMessage": .string(error.errorMessage)]
        }
        if function == "authorizer" {
            recording.decision = result.map(redaction.decision)
        } else {
            recording.event = event.map(redaction.event) ?? .string(RecordingRedaction.marker)
            recording.response = result.map(RecordingRedaction.response)
        }
        return recording
    }

    private func write(_ recording: Recording) {
        let timestamp = CivilTime.iso8601Milliseconds(clock())
        for line in RecordingLines.lines(for: recording, json: json, timestamp: timestamp) { Console.out(line) }
    }
}
