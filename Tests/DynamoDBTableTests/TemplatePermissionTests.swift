import AWSServices
import DynamoDBTable
import EmulatorKit
import Foundation
import HTTPText
import InkraHandlers
import InkraJSON
import InkraTestSupport
import InkraTime
import InkraUsage
import SingleTable
import Synchronization
import Testing

/// template.yaml grants each function exactly the DynamoDB actions its calls need: the function's
/// flows (answered, refused, given back, repeated, erased) run over the real DynamoDB client, whose
/// transport records every call, and the recorded actions must equal the function's statement.
/// IAM authorizes a `TransactWriteItems` by the actions of the items it holds (`PutItem`,
/// `UpdateItem`, `DeleteItem`, `ConditionCheckItem`; DynamoDB developer guide, "Using IAM with
/// DynamoDB transactions"), and a `Query` with `IndexName` on the index's ARN
/// (`${UsageTable.Arn}/index/<name>`).
@Suite("template.yaml: each function's DynamoDB actions are the ones it calls")
struct TemplatePermissionTests {
    /// The emulator's DynamoDB endpoint, without a socket, recording the IAM action of each call.
    final class Recording: DynamoDBTransport {
        let endpoint = LocalDynamoDB(
            table: InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now }),
            now: { Timestamp.now })
        let actions = Mutex<Set<String>>([])

        func send(_ request: DynamoDBHTTPRequest) async throws -> DynamoDBHTTPResponse {
            let body = (try? JSONParser.parse(request.body)) ?? .null
            actions.withLock { $0.formUnion(Self.actions(request.operation, body)) }
            let target = request.headers.first { $0.0.lowercased() == "x-amz-target" }?.1
            let reply = await endpoint.respond(target: target, body: request.body)
            return DynamoDBHTTPResponse(status: reply.status, body: reply.body)
        }

        /// `dynamodb:<Action> on <resource>`, as IAM evaluates the call.
        static func actions(_ operation: String, _ body: JSONValue) -> Set<String> {
            switch operation {
            case "TransactWriteItems":
                let kinds = [
                    "Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem",
                    "ConditionCheck": "ConditionCheckItem",
                ]
                var actions: Set<String> = []
                for item in body["TransactItems"]?.array ?? [] {
                    for (kind, action) in kinds where item[kind] != nil {
                        actions.insert("dynamodb:\(action) on table")
                    }
                }
                return actions
            case "Query", "Scan":
                let resource = body["IndexName"]?.string.map { "index/\($0)" } ?? "table"
                return ["dynamodb:\(operation) on \(resource)"]
            default:
                return ["dynamodb:\(operation) on table"]
            }
        }
    }

    struct Failing: QuestionGenerator {
        func questions(for request: QuestionRequest) async throws -> [String] { throw CancellationError() }
    }

    /// With an email, so the flows open the month, carry a deleted account's usage over and read
    /// it back, as an ID token's caller does.
    static let caller: JSONValue = ["principalId": "u1", "userId": "u1", "tier": "free", "email": "u1@example.com"]

    static func event(_ method: String, _ path: String, body: String? = nil, key: String? = nil) -> JSONValue {
        var headers: JSONObject = ["Content-Type": "application/json"]
        if let key { headers["Idempotency-Key"] = .string(key) }
        var event: JSONValue = [
            "httpMethod": .string(method), "path": .string(path), "headers": .object(headers),
            "requestContext": ["authorizer": caller],
        ]
        if let body { event.set(.string(body), at: ["body"]) }
        return event
    }

    static func store(_ transport: Recording) -> TableUsageStore {
        let table = DynamoDBTable(
            endpoint: HTTPURL(string: "http://127.0.0.1:8000")!, region: "us-east-1",
            credentials: AWSCredentials(accessKeyID: "local", secretAccessKey: "local"), transport: transport,
            now: { Timestamp.now })
        return TableUsageStore(table: table, tableName: "inkra-usage")
    }

    static let question = #"{"topic":"a summer by the sea","length":"short"}"#

    /// What each function's flows call, by handler.
    static func recorded(_ handler: String) async throws -> Set<String> {
        let transport = Recording()
        let store = Self.store(transport)
        let one = TierLimits(["free": Limits(monthly: 2, daily: 2, hourly: 2)])
        let now: @Sendable () -> Timestamp = { Timestamp.now }
        switch handler {
        case "checkUsage":
            _ = try await CheckUsage(store: store, limits: one).handle(
                event("GET", "/usage"), context: InvocationContext(time: now()))
        case "generateQuestions":
            let answering = GenerateQuestions(
                store: store, generator: TemplateQuestionGenerator(), limits: one)
            // Answered, repeated with its key, answered, refused by the month and refused again
            // (the standing refusal, read without a write, with and without a key); then given back.
            _ = try await answering.handle(
                event("POST", "/questions", body: question, key: "k1"), context: InvocationContext(time: now()))
            _ = try await answering.handle(
                event("POST", "/questions", body: question, key: "k1"), context: InvocationContext(time: now()))
            _ = try await answering.handle(
                event("POST", "/questions", body: question), context: InvocationContext(time: now()))
            _ = try await answering.handle(
                event("POST", "/questions", body: question), context: InvocationContext(time: now()))
            _ = try await answering.handle(
                event("POST", "/questions", body: question), context: InvocationContext(time: now()))
            _ = try await answering.handle(
                event("POST", "/questions", body: question, key: "k9"), context: InvocationContext(time: now()))
            let room = TierLimits(["free": Limits(monthly: 100, daily: 100, hourly: 100)])
            let failing = GenerateQuestions(store: store, generator: Failing(), limits: room)
            _ = try await failing.handle(
                event("POST", "/questions", body: question), context: InvocationContext(time: now()))
            // Given back with its key: the in-progress record goes with the unit.
            let failed = try await failing.handle(
                event("POST", "/questions", body: question, key: "k2"), context: InvocationContext(time: now()))
            #expect(failed["statusCode"]?.int == 502, "generation failed; the unit is given back: \(failed)")
        case "deleteAccount":
            _ = try await GenerateQuestions(
                store: store, generator: TemplateQuestionGenerator(), limits: one
            ).handle(event("POST", "/questions", body: question), context: InvocationContext(time: now()))
            transport.actions.withLock { $0 = [] }
            _ = try await DeleteAccount(store: store).handle(
                event("DELETE", "/account"), context: InvocationContext(time: now()))
            _ = try await DeleteAccount(store: store).handle(
                event("DELETE", "/account"), context: InvocationContext(time: now()))
        case "repairCharges":
            // An orphan: charged with a key, never answered; the repair finds it once its lease ran out.
            let request = ConsumeRequest(
                userID: "u1", instant: Timestamp.now, limits: .free, idempotencyKey: "k3",
                requestBody: Array(question.utf8))
            _ = try await store.consume(request)
            transport.actions.withLock { $0 = [] }
            let later: @Sendable () -> Timestamp = { Timestamp.now.addingTimeInterval(3600) }
            let repaired = try await RepairCharges(store: store).handle([:], context: InvocationContext(time: later()))
            #expect(repaired["repaired"] == 1, "the orphan is given back: \(repaired)")
        default:
            return []
        }
        return transport.actions.withLock { $0 }
    }

    /// The DynamoDB actions a function's policy statements grant, as `dynamodb:<Action> on <resource>`.
    static func granted(_ lines: [String]) -> Set<String> {
        var granted: Set<String> = []
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("Action:"), trimmed.contains("dynamodb:") else { continue }
            let actions = TemplateText.flowList(String(trimmed.dropFirst("Action:".count)))
            let resource =
                lines[(index + 1)...].first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("Resource:") }
                ?? ""
            let target: String
            if resource.contains("!GetAtt UsageTable.Arn") {
                target = "table"
            } else if let range = resource.range(of: "${UsageTable.Arn}/") {
                target = String(resource[range.upperBound...]).trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
            } else {
                target = "unknown resource \(resource)"
            }
            for action in actions { granted.insert("\(action) on \(target)") }
        }
        return granted
    }

    @Test("No SAM policy template that grants more than the calls (DynamoDBCrudPolicy and its kind)")
    func noBroadPolicies() throws {
        let template = try TemplateText()
        for (handler, lines) in template.functions() {
            let broad = lines.filter {
                $0.contains("DynamoDBCrudPolicy") || $0.contains("DynamoDBReadPolicy")
                    || $0.contains("DynamoDBWritePolicy") || $0.contains("dynamodb:*")
            }
            #expect(broad.isEmpty, "\(handler): \(broad)")
        }
    }

    @Test(
        "Each function's statement grants exactly the actions its flows call",
        arguments: ["authorizer", "checkUsage", "generateQuestions", "deleteAccount", "repairCharges"])
    func grantsWhatIsCalled(handler: String) async throws {
        let template = try TemplateText()
        let lines = try #require(template.functions()[handler], "template.yaml has no function \(handler)")
        let called = try await Self.recorded(handler)
        #expect(Self.granted(lines) == called, "\(handler) calls \(called.sorted())")
    }

    @Test("Every function of template.yaml is driven here")
    func everyFunctionIsDriven() throws {
        let driven: Set<String> = ["authorizer", "checkUsage", "generateQuestions", "deleteAccount", "repairCharges"]
        #expect(Set(try TemplateText().functions().keys).subtracting(driven).isEmpty, "add its flows to recorded(_:)")
    }

    @Test("A Query on the index is granted on the index's ARN, as IAM evaluates it")
    func indexQuery() {
        #expect(Recording.actions("Query", ["IndexName": "GSI1"]) == ["dynamodb:Query on index/GSI1"])
        let statement = [
            "            - Effect: Allow", "              Action: [dynamodb:Query]",
            "              Resource: !Sub ${UsageTable.Arn}/index/GSI1",
        ]
        #expect(Self.granted(statement) == ["dynamodb:Query on index/GSI1"])
    }
}
