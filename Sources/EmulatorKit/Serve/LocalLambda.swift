import Foundation
import InkraHandlers
import InkraJSON
import InkraTime

/// Lambda's Invoke API on loopback (`POST /2015-03-31/functions/{name}/invocations`), so
/// `aws lambda invoke --endpoint-url …` and boto3 can call the functions: RequestResponse (200),
/// Event (202, run after answering), DryRun (204), function errors as 200 with
/// `X-Amz-Function-Error: Unhandled`, Lambda's error JSON for unknown functions and bad payloads,
/// and the log tail when asked for.
package struct LocalLambda: Sendable {
    /// Lambda's largest synchronous request payload.
    package static let payloadLimit = 6 * 1024 * 1024

    private let stack: EmulatorStack
    private let target: FunctionTarget?
    private let events = EventInvocations()
    private let region: String
    private let account = "123456789012"

    /// The Invoke API over a stack.
    /// - Parameters:
    ///   - stack: the functions.
    ///   - target: where to run a function other than in-process (a runtime behind the Runtime API).
    package init(stack: EmulatorStack, target: FunctionTarget? = nil) {
        self.stack = stack
        self.target = target
        region = stack.options.region ?? "us-east-1"
    }

    /// Answers one request to the Invoke API.
    package func respond(_ request: LocalHTTPRequest) async -> LocalHTTPResponse {
        let requestID = RequestID.make()
        var response = await answer(request, requestID: requestID)
        response.headers.append(("x-amzn-RequestId", requestID))
        return response
    }

    /// Lambda's answer to a payload over its 6 MB limit.
    package static func requestTooLarge() -> LocalHTTPResponse {
        error(
            413, "RequestTooLargeException",
            "Request must be smaller than \(payloadLimit) bytes for the InvokeFunction operation")
    }

    /// Waits for every `Event` invocation still running.
    package func finishEventInvocations() async {
        await events.waitForAll()
    }

    private func answer(_ request: LocalHTTPRequest, requestID: String) async -> LocalHTTPResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        guard parts.count == 4, parts[0] == "2015-03-31", parts[1] == "functions", parts[3] == "invocations" else {
            return Self.error(404, "UnknownOperationException", "Unknown operation \(request.method) \(request.path)")
        }
        guard request.method == "POST" else {
            return Self.error(405, "MethodNotAllowedException", "The Invoke API takes POST, not \(request.method)")
        }
        let name = parts[2].removingPercentEncoding ?? parts[2]
        guard let function = Self.function(named: name, qualifier: Self.qualifier(in: request.query)) else {
            return Self.error(
                404, "ResourceNotFoundException", "Function not found: \(arn(of: Self.bareName(name)))")
        }
        guard request.body.count <= Self.payloadLimit else { return Self.requestTooLarge() }
        let event: JSONValue
        do {
            event = request.body.isEmpty ? .object(JSONObject()) : try JSONParser.parse(request.body)
        } catch {
            return Self.error(
                400, "InvalidRequestContentException",
                "Could not parse request body into json: \(error)")
        }
        switch request.header("X-Amz-Invocation-Type") ?? "RequestResponse" {
        case "RequestResponse":
            return await invoke(function, event, requestID: requestID, tail: request.header("X-Amz-Log-Type") == "Tail")
        case "Event":
            await events.start { _ = await invoke(function, event, requestID: requestID, tail: false) }
            return LocalHTTPResponse(status: 202, headers: [("Content-Type", "application/json")])
        case "DryRun":
            return LocalHTTPResponse(status: 204)
        case let other:
            return Self.error(
                400, "InvalidParameterValueException",
                "X-Amz-Invocation-Type must be RequestResponse, Event or DryRun, not \(other)")
        }
    }

    private func invoke(_ function: FunctionName, _ event: JSONValue, requestID: String, tail: Bool) async
        -> LocalHTTPResponse
    {
        let log = InvocationLog(requestID: requestID)
        let started = ContinuousClock.now
        log.append("START RequestId: \(requestID) Version: $LATEST")
        let caller = #isolation
        let invocation = await InvocationLog.$current.withValue(log) {
            await isolated(to: caller) {
                if let target, let result = await target(function, event, nil) { return result }
                return await Invocation.run(stack.handler(for: function), event, context: stack.context())
            }
        }
        let elapsed = ContinuousClock.now - started
        let milliseconds = elapsed.milliseconds
        log.append("END RequestId: \(requestID)")
        log.append(
            "REPORT RequestId: \(requestID)\tDuration: \(String(format: "%.2f", milliseconds)) ms\t"
                + "Billed Duration: \(Int(milliseconds.rounded(.up))) ms\tMemory Size: 128 MB\t")
        var headers: [(name: String, value: String)] = [
            ("Content-Type", "application/json"), ("X-Amz-Executed-Version", "$LATEST"),
        ]
        if case .failure = invocation.outcome { headers.append(("X-Amz-Function-Error", "Unhandled")) }
        if tail { headers.append(("X-Amz-Log-Result", log.tail())) }
        return LocalHTTPResponse(status: 200, headers: headers, body: invocation.json.jsonBytes)
    }

    /// The function a name, partial ARN or ARN names (`checkUsage`, `checkUsage:$LATEST`,
    /// `123456789012:function:checkUsage`, `arn:aws:lambda:us-east-1:123456789012:function:checkUsage`).
    static func function(named name: String, qualifier: String?) -> FunctionName? {
        var pieces = name.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        if let index = pieces.firstIndex(of: "function") { pieces.removeFirst(index + 1) }
        guard let bare = pieces.first, pieces.count <= 2 else { return nil }
        let version = pieces.count == 2 ? pieces[1] : qualifier
        guard version == nil || version == "$LATEST" else { return nil }
        return FunctionName(rawValue: bare)
    }

    static func bareName(_ name: String) -> String {
        let pieces = name.split(separator: ":").map(String.init)
        guard let index = pieces.firstIndex(of: "function"), index + 1 < pieces.count else { return name }
        return pieces[(index + 1)...].joined(separator: ":")
    }

    static func qualifier(in query: String) -> String? {
        ProxyEventBuilder.queryParameters(query).first { $0.0 == "Qualifier" }?.1
    }

    private func arn(of name: String) -> String { "arn:aws:lambda:\(region):\(account):function:\(name)" }

    /// Lambda's error answer: the type in `x-amzn-ErrorType` and `{"Type":"User","message":…}`.
    static func error(_ status: Int, _ type: String, _ message: String) -> LocalHTTPResponse {
        let body: JSONValue = ["Type": "User", "message": .string(message)]
        return LocalHTTPResponse(
            status: status, headers: [("Content-Type", "application/json"), ("x-amzn-ErrorType", type)],
            body: body.jsonBytes)
    }
}

/// The `Event` invocations still running, so a shutdown can wait for them.
actor EventInvocations {
    private var running: [Int: Task<Void, Never>] = [:]
    private var nextID = 0

    /// Starts one.
    func start(_ work: @escaping @Sendable () async -> Void) {
        let id = nextID
        nextID += 1
        running[id] = Task {
            await work()
            self.finished(id)
        }
    }

    private func finished(_ id: Int) { running[id] = nil }

    /// Waits until none is running.
    func waitForAll() async {
        while !running.isEmpty {
            for task in Array(running.values) { await task.value }
        }
    }
}
