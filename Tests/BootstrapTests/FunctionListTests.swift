import Foundation
import InkraHandlers
import InkraJSON
import InkraTesting
import InkraTime
import InkraUsage
import Logging
import Testing

@testable import EmulatorKit
@testable import InkraRuntime

/// `FunctionList.standard` is the runtime's one list of the functions `_HANDLER` names: the
/// function lookup builds from it and the recorder names recordings by it, so a recording always
/// names a function the emulator's `import` and `replay` know.
@Suite("The runtime's functions: one list")
struct FunctionListTests {
    @Test(
        "A recording names the function as the list spells it, whatever the case and prefix of _HANDLER",
        arguments: FunctionList.standard.names)
    func recorderSpellsListedName(function: String) {
        for handler in [function, function.lowercased(), "bootstrap.\(function.uppercased())"] {
            let recorder = Recorder(
                handler: handler, json: false, secret: .development, clock: { Timestamp(timeIntervalSince1970: 0) })
            #expect(recorder.function == function, "_HANDLER=\(handler)")
        }
    }

    @Test("A _HANDLER outside the list is recorded as given, and refused at start naming the list")
    func unknownHandler() async {
        #expect(FunctionList.standard.name(matching: "bootstrap.deleteAll") == nil)
        #expect(
            Recorder(handler: "bootstrap.deleteAll", json: false, secret: .development, clock: { Timestamp.now })
                .function
                == "deleteAll")
        #expect(Recorder(handler: nil, json: false, secret: .development, clock: { Timestamp.now }).function == "")
        let error = await #expect(throws: ConfigurationError.self) {
            _ = try await FunctionAssembly.function(
                named: "bootstrap.deleteAll", configuration: Configuration(), clock: { Timestamp.now },
                logger: Logger(label: "test"))
        }
        #expect(error?.setting == "_HANDLER")
        #expect(error?.code == .invalid)
        #expect(
            error?.reason
                == "must be authorizer, checkUsage, generateQuestions, deleteAccount or repairCharges, "
                + "got \"bootstrap.deleteAll\"")
    }

    @Test("The runtime's functions are the emulator's: every recording's function can be imported and replayed")
    func sameAsEmulator() {
        #expect(FunctionList.standard.names == FunctionName.allCases.map(\.rawValue))
        #expect(FunctionList.standard.nameList == FunctionName.names)
    }

    /// A function of the program's own: one type and one line in the list.
    struct Echo: EventHandler {
        func handle(_ event: JSONValue, context: InvocationContext) async throws(FunctionError) -> JSONValue {
            ["event": event, "requestID": .string(context.requestID)]
        }
    }

    @Test("A function added to the list is served by its name, and named in the refusal of another")
    func addedFunction() async throws {
        let functions = FunctionList.standard.adding("echo") { _ in Echo() }
        #expect(functions.names == FunctionList.standard.names + ["echo"])
        let echo = try await FunctionAssembly.function(
            named: "bootstrap.ECHO", in: functions, configuration: Configuration(), clock: { Timestamp.now },
            logger: Logger(label: "test"))
        let answer = try await echo.handle(
            ["n": 1],
            context: InvocationContext(requestID: "r-1", time: Timestamp(timeIntervalSince1970: 1_800_000_000)))
        #expect(answer == ["event": ["n": 1], "requestID": "r-1"])
        let error = await #expect(throws: ConfigurationError.self) {
            _ = try await FunctionAssembly.function(
                named: "deleteAll", in: functions, configuration: Configuration(), clock: { Timestamp.now },
                logger: Logger(label: "test"))
        }
        #expect(
            error?.reason
                == "must be authorizer, checkUsage, generateQuestions, deleteAccount, repairCharges or echo, "
                + "got \"deleteAll\"")
    }

    /// A function of the program's own that reads a user's usage from the runtime's store, bound
    /// to its invocation as the built-in functions bind theirs.
    struct UsageReading: EventHandler {
        let store: any UsageStore

        func handle(_ event: JSONValue, context: InvocationContext) async throws(FunctionError) -> JSONValue {
            do {
                let report = try await store.bound(to: context).usage(
                    for: "u1", email: nil, at: context.time, limits: .free)
                return ["used": .number(report.monthly.used)]
            } catch {
                return ["error": .string("\(error)")]
            }
        }
    }

    @Test("A function added to the list gets its invocation's deadline at the store, as the built-in ones do")
    func addedFunctionDeadline() async throws {
        // DynamoDB on a port nobody answers: a store that ignored the deadline would try it, again
        // and again; one bound to a past deadline sends nothing and says why.
        let configuration = try Configuration(environment: [
            "INKRA_STORE": "dynamodb", "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "local",
            "AWS_SECRET_ACCESS_KEY": "local", "AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:9",
        ])
        let functions = FunctionList.standard.adding("usageReading") { UsageReading(store: try await $0.usageStore()) }
        func function(_ name: String) async throws -> any EventHandler {
            try await FunctionAssembly.function(
                named: name, in: functions, configuration: configuration, clock: { Timestamp.now },
                logger: Logger(label: "test"))
        }
        let passed = InvocationContext(
            time: Timestamp(timeIntervalSince1970: 1_800_000_000), deadline: .now - .seconds(1),
            cleanupDeadline: .now - .seconds(1))
        let reading = try await function("usageReading").handle([:], context: passed)
        #expect(reading["error"]?.string?.contains("the request's deadline has passed") == true, "\(reading)")
        let event = ProxyEvent.rest("GET", "/usage", caller: Caller("u1"))
        let check = try await function("checkUsage").handle(event, context: passed)
        #expect(check["statusCode"] == 503, "\(check)")
    }
}
