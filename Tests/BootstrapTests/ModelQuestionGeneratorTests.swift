import Foundation
import HTTPText
import InkraHandlers
import InkraJSON
import InkraLLM
import InkraTestSupport
import InkraTime
import InkraUsage
import SingleTable
import Testing

@testable import InkraRuntime

/// The model endpoint as bootstrap makes it the functions' `QuestionGenerator`.
@Suite("bootstrap's model generator")
struct ModelQuestionGeneratorTests {
    @Test("When the model fails, generateQuestions (as bootstrap wires it) answers 502 and gives the unit back")
    func refund() async throws {
        let server = try await StubHTTPServer { _ in .json(503, "{}") }
        defer { server.shutdown() }
        let table = InMemoryTable(schema: .singleTable(named: "inkra-usage"), now: { Timestamp.now })
        let function = GenerateQuestions(
            store: TableUsageStore(table: table, tableName: "inkra-usage"),
            generator: ModelQuestionGenerator(
                model: ChatCompletionsGenerator(
                    settings: .init(
                        baseURL: HTTPURL(string: "http://127.0.0.1:\(server.port)/v1")!, apiKey: "sk-test",
                        model: "test-model")))
        )
        let event: JSONValue = ["body": #"{"topic":"x"}"#, "requestContext": ["authorizer": ["principalId": "llm"]]]
        let response = try await function.handle(
            event, context: InvocationContext(time: Timestamp(timeIntervalSince1970: 1_800_000_000)))
        #expect(response["statusCode"] == 502)
        let month = try await table.getItem(
            GetItemRequest(tableName: "inkra-usage", key: ["PK": .s(userPartition("llm")), "SK": .s("USAGE#2027-01")])
        ).item
        #expect(month?["interviewCount"] == .n(0))
    }
}
