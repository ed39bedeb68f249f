import DynamoDBTable
import EmulatorKit
import EmulatorServer
import Foundation
import InkraJSON
import InkraTestSupport
import InkraTime
import Synchronization
import Testing

/// X-Ray segments from the built `bootstrap`, as Lambda's X-Ray daemon would receive them: the
/// runtime is started with `AWS_XRAY_DAEMON_ADDRESS` pointing at a UDP listener of the test, on
/// moto's DynamoDB behind a fault proxy that throttles the first charge, so a retry happens.
///
/// What the datagrams must hold follows AWS's documentation: "Sending segment documents to the
/// X-Ray daemon" (https://docs.aws.amazon.com/xray/latest/devguide/xray-api-sendingdata.html#xray-api-daemon:
/// a JSON header line, a newline, the document) and "AWS X-Ray segment documents"
/// (https://docs.aws.amazon.com/xray/latest/devguide/xray-api-segmentdocuments.html: a subsegment
/// sent on its own carries `type`, `trace_id` and `parent_id`; `namespace` `aws` or `remote`;
/// `throttle`, `error`, `fault`; the `aws` object's `operation`, `table_name`, `retries`); the
/// trace header is Lambda's (`Root=…;Parent=…;Sampled=1`, "Using AWS Lambda with AWS X-Ray",
/// https://docs.aws.amazon.com/lambda/latest/dg/services-xray.html).
@Suite(
    "bootstrap's X-Ray segments: the invocation's time, call by call, and no content",
    .enabled(if: MotoEndpoint.isAvailable, Comment(rawValue: MotoEndpoint.skipReason)),
    .serialized)
struct BootstrapTraceTests {
    static let root = "1-67a0b1c2-0123456789abcdef01234567"
    static let parent = "53995c3f42cd8ad8"

    /// Every subsegment of `document`, depth first, with its parent's.
    static func walk(_ document: JSONValue, parent: JSONValue? = nil) -> [(span: JSONValue, parent: JSONValue?)] {
        [(document, parent)] + (document["subsegments"]?.array ?? []).flatMap { walk($0, parent: document) }
    }

    @Test("A throttled charge retried: the tree, ids, parent links, timing, the retry and its backoff, no content")
    func throttledRetry() async throws {
        // The emulator's listener, which reads each datagram as the daemon does (header line, newline,
        // document) and keeps the documents by trace id.
        let daemon = try await SegmentCollector()
        // Armed after the warm-up call: the traced call's charge is throttled once, then let through.
        let armed = Mutex(false)
        let stack = try await FaultStack { operation, _ in
            guard operation == "TransactWriteItems",
                armed.withLock({
                    let was = $0
                    $0 = false
                    return was
                })
            else {
                return nil
            }
            return .error(status: 400, type: "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException")
        }
        defer { stack.stop() }
        stack.modelAnswers()
        let runtime = try await stack.start(
            "generateQuestions", ["AWS_XRAY_DAEMON_ADDRESS": daemon.address, "AWS_LAMBDA_LOG_FORMAT": "JSON"])
        // A first, unsampled call warms the sandbox (its start-up lines come before it), and sends
        // no segment.
        let warm = try await runtime.invoke(FaultStack.questions(topic: "warm", key: "warm-1"))
        #expect(warm.status == 200, "\(warm.raw)")
        let chargesBefore = stack.proxy.count("TransactWriteItems")
        armed.withLock { $0 = true }
        let now = Timestamp.now
        let reply = try await runtime.invoke(
            FaultStack.questions(topic: "my grandmother's garden", key: "trace-1", at: now),
            traceHeader: "Root=\(Self.root);Parent=\(Self.parent);Sampled=1")
        #expect(reply.status == 200, "\(reply.raw)")
        let document = try #require(
            await daemon.document(forTrace: Self.root, waitingUpTo: Patience.hang), "no segment reached the daemon")

        // The invocation's subsegment, under Lambda's function segment.
        #expect(document["type"] == "subsegment")
        #expect(document["trace_id"]?.string == Self.root)
        #expect(document["parent_id"]?.string == Self.parent)
        #expect(document["name"] == "## generateQuestions")
        #expect(document["http"]?["response"]?["status"]?.int == 200)

        let spans = Self.walk(document)
        let ids = spans.compactMap { $0.span["id"]?.string }
        #expect(ids.count == spans.count && Set(ids).count == ids.count, "ids missing or repeated")
        #expect(ids.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isHexDigit) })
        for (span, parent) in spans {
            let start = try #require(span["start_time"]?.double)
            let end = try #require(span["end_time"]?.double)
            #expect(start <= end, "\(span)")
            if let parent, let parentStart = parent["start_time"]?.double, let parentEnd = parent["end_time"]?.double {
                #expect(parentStart <= start && end <= parentEnd, "\(span) is not within \(parent)")
            }
        }

        // The charge: a consume span holding the throttled, retried TransactWriteItems and its backoff.
        let consume = try #require(spans.first { $0.span["name"] == "consume" }?.span)
        let calls = Self.walk(consume).map(\.span).filter { $0["name"] == "DynamoDB" }
        let charge = try #require(calls.first { $0["aws"]?["operation"] == "TransactWriteItems" }, "\(consume)")
        #expect(charge["namespace"] == "aws")
        #expect(charge["aws"]?["table_name"]?.string == stack.table)
        // One attempt throttled, then let through; on a loaded machine an attempt may also time out
        // and be retried. The span counts exactly the attempts that reached DynamoDB, one backoff
        // before each retry.
        let attempts = stack.proxy.count("TransactWriteItems") - chargesBefore
        #expect(attempts >= 2, "the throttled charge was not retried")
        #expect(charge["aws"]?["retries"]?.int == attempts - 1, "\(attempts) attempts: \(charge)")
        #expect(charge["throttle"] == true)
        #expect(charge["fault"] == nil && charge["error"] == nil, "the retry succeeded: \(charge)")
        let backoffs = (charge["subsegments"]?.array ?? []).filter { $0["name"] == "backoff" }
        #expect(backoffs.count == attempts - 1, "\(charge)")

        // The model call: remote, its status, its URL without a query.
        let model = try #require(spans.first { $0.span["name"] == "model" }?.span)
        #expect(model["namespace"] == "remote")
        #expect(model["http"]?["response"]?["status"]?.int == 200)
        #expect(model["http"]?["request"]?["url"]?.string?.hasSuffix("/v1/chat/completions") == true)

        // Nothing of the request: no topic, no question, no user, no key.
        let text = document.jsonString
        for secret in ["grandmother", "garden", "Question number", "USER#", "trace-1", "u1\""] {
            #expect(!text.contains(secret), "the segment holds \(secret)")
        }

        #expect(try await stack.counters("u1", at: now)[0] == 2, "two calls answered 200, two units")
        await runtime.stop()
        await daemon.shutdown()
    }

    @Test("Not sampled, or no daemon address: nothing is sent; a malformed address stops start-up")
    func notSampled() async throws {
        // The emulator's listener, which reads each datagram as the daemon does (header line, newline,
        // document) and keeps the documents by trace id.
        let daemon = try await SegmentCollector()
        let stack = try await FaultStack()
        defer { stack.stop() }
        stack.modelAnswers()
        let runtime = try await stack.start(
            "generateQuestions", ["AWS_XRAY_DAEMON_ADDRESS": "udp:\(daemon.address) tcp:127.0.0.1:2000"])
        let unsampled = try await runtime.invoke(
            FaultStack.questions(topic: "one", key: "n-1"),
            traceHeader: "Root=\(Self.root);Parent=\(Self.parent);Sampled=0")
        #expect(unsampled.status == 200, "\(unsampled.raw)")
        let otherRoot = "1-67a0b1c2-fedcba9876543210fedcba98"
        let sampled = try await runtime.invoke(
            FaultStack.questions(topic: "two", key: "n-2"),
            traceHeader: "Root=\(otherRoot);Parent=\(Self.parent);Sampled=1")
        #expect(sampled.status == 200, "\(sampled.raw)")
        // Datagrams on loopback arrive in order: once the sampled invocation's has come, the
        // unsampled one's would have too.
        #expect(await daemon.document(forTrace: otherRoot, waitingUpTo: Patience.hang) != nil)
        #expect(await daemon.document(forTrace: Self.root, within: .zero) == nil, "an unsampled invocation was traced")
        await runtime.stop()
        await daemon.shutdown()

        let (outcome, printed) = try await BuiltBootstrap.invoke(
            "checkUsage", ["AWS_XRAY_DAEMON_ADDRESS": "not an address"],
            event: FaultStack.event("checkUsage/01-rest-new-user.json"))
        var message = ""
        if case RuntimeOutcome.initializationFailed(let type, let body) = outcome {
            message = type + " " + String(decoding: body, as: UTF8.self)
        }
        #expect(message.contains("Runtime.InitError"), "started with a malformed address: \(outcome) \(printed)")
        #expect(message.contains("AWS_XRAY_DAEMON_ADDRESS must be host:port"), "\(message)")
    }
}

/// Every line a runtime logs during an invocation names the invocation, in both of Lambda's log
/// formats ("Configuring JSON and plain text log formats",
/// https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-logformat.html: the JSON
/// format's `requestId`; Lambda's own runtimes print it as the Text format's second column).
@Suite("bootstrap's log lines carry the invocation's request id and trace id")
struct BootstrapLogContextTests {
    @Test("Two refusals, two request ids, each on its own lines", arguments: ["JSON", "Text"])
    func refusals(format: String) async throws {
        let settings = try BootstrapAuthorizerTruthTests.settings(form: "ORIGINAL", keys: originalPool, format: format)
        // A development token: no key of this pool signed it, so the authorizer refuses and says why.
        let event = try FaultStack.event("authorizer/01-token-free-user.json")
        let printed = try await BuiltBootstrap.session("authorizer", settings) { invoke in
            _ = await invoke(event)
            _ = await invoke(event)
        }
        let refusals = printed.standardError.split(separator: "\n").map(String.init).filter { $0.contains("refused:") }
        #expect(refusals.count >= 2, "\(printed.standardError)")
        var requestIDs: [String] = []
        for line in refusals {
            if format == "JSON" {
                let fields = try JSONParser.parse(Array(line.utf8))
                let trace = try #require(fields["traceId"]?.string, Comment(rawValue: line))
                #expect(trace.hasPrefix("1-"), "\(line)")
                requestIDs.append(try #require(fields["requestId"]?.string, Comment(rawValue: line)))
            } else {
                let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
                #expect(columns.count >= 4, "\(line)")
                #expect(columns.count < 3 || columns[2] == "INFO", "\(line)")
                requestIDs.append(columns.count > 1 ? String(columns[1]) : "")
            }
        }
        #expect(requestIDs.allSatisfy { $0.count == 36 }, "\(requestIDs)")
        #expect(Set(requestIDs).count == 2, "\(requestIDs)")
        // The start-up line, outside any invocation, names none.
        let startup = try #require(printed.standardError.split(separator: "\n").first { $0.contains("serving") })
        #expect(!startup.contains("requestId"), "\(startup)")
    }
}
