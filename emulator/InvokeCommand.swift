import ArgumentParser
import EmulatorKit
import Foundation
import InkraHandlers
import InkraJSON

struct InvokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invoke",
        abstract: "Invoke one function with one event.",
        discussion: """
            An API event (checkUsage, generateQuestions, deleteAccount) whose authorizer section names no caller \
            (none, or SAM's placeholder claims) goes through the authorizer first when it carries an \
            Authorization header, as API Gateway and replay run it, and is refused 401 when it carries neither; \
            other events go to the function alone. When the authorizer refuses or denies, standard error says \
            why (expired, issuedInFuture, wrongIssuer, unknownKey, …; never the token).

            Prints the function's response on standard output and exits 0; a function error prints Lambda's \
            error object {"errorMessage":…,"errorType":…} and exits 1; an unreadable event or a bad flag exits 2.

            Examples, from the repository root:
              swift run inkra-emulator invoke checkUsage \\
                --event events/checkUsage/04-rest-cognito-authorizer.json
              swift run inkra-emulator generate-event token-authorizer --sub alice \\
                | swift run inkra-emulator invoke authorizer
            """
    )

    @Argument(help: "The function to invoke (its name in any case).")
    var function: Choice<FunctionName>

    @Option(help: "The event file, or - for standard input (default: standard input).")
    var event: String = "-"

    @OptionGroup var common: CommonOptions

    func run() async throws {
        LogSetup.bootstrap(level: common.logLevel.value)
        let name = function.value
        let data: Data
        do {
            data = event == "-" ? await Self.standardInput() : try Data(contentsOf: URL(fileURLWithPath: event))
        } catch {
            throw UsageFailure("cannot read event \(event): \(error.localizedDescription)")
        }
        let source = event == "-" ? "standard input" : event
        guard data.count <= Replayer.maximumEventSize else {
            throw UsageFailure(
                "event \(source) is \(data.count) bytes; Lambda accepts at most \(Replayer.maximumEventSize)")
        }
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(Replayer.jsonBytes(of: data))
        } catch {
            throw UsageFailure("event \(source) is not valid JSON: \(error)")
        }
        let stack = try await EmulatorStack(options: try common.emulatorOptions())
        let (cleaned, time) = Replayer.prepare(parsed)
        let invocation = await stack.gateway.invoke(name, event: cleaned, at: stack.options.now == nil ? time : nil)
        let result = invocation.outcome
        try stack.saveState()
        if let refusal = invocation.refusal { Output.err("inkra-emulator: \(Self.refused(refusal))") }
        switch result {
        case .success(let output):
            Output.out(output.jsonString)
        case .failure(let error):
            Output.out(error.json.jsonString)
            throw ExitCode(1)
        }
    }
}

extension InvokeCommand {
    /// Standard input to its end, read on a thread of its own, so a pipe slow to close holds no
    /// thread of Swift's cooperative pool.
    static func standardInput() async -> Data {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: FileHandle.standardInput.readDataToEndOfFile()) }
        }
    }

    /// Why the request was refused, for standard error.
    static func refused(_ refusal: String) -> String {
        guard refusal != "noToken" else {
            return "API Gateway refused the request: noToken (no Authorization header, and no authorizer section "
                + "naming a caller)"
        }
        return "the authorizer refused the token: \(refusal)\(hint(refusal))"
    }

    /// What to try for a refusal a local event often meets.
    static func hint(_ refusal: String) -> String {
        switch refusal {
        case "issuedInFuture", "notYetValid":
            " (the event's recorded time is before the token was issued: try invoke --now, or token --now at the event's time)"
        case "expired":
            " (the token had expired at the event's recorded time: try invoke --now, or token --now at the event's time)"
        case "wrongIssuer": " (the token is not from the pool the emulator trusts: see --issuer and --user-pool-id)"
        default: ""
        }
    }
}

/// A usage error: a message on standard error and exit status 2.
struct UsageFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    /// Refuses the first of `paths` that names nothing, as docs/bad-input.md says: exit 2.
    static func requireExisting(_ paths: [String]) throws(UsageFailure) {
        for path in paths where !FileManager.default.fileExists(atPath: path) {
            throw UsageFailure("no such file or folder: \(path)")
        }
    }
}
